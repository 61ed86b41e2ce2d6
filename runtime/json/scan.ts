import { describeProblem, formatPath, type JsonLimits, type JsonProblem, type JsonProblemCode } from "./limits.js";

const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c, COLON = 0x3a;
const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;
/** Longest key text that can still spell a forbidden key: each character written as `\uXXXX`. */
const KEY_TEXT_CHECKED = 6 * 16 + 2;

/**
 * Checks a JSON text against `limits` without building anything: one pass, no recursion, memory
 * in proportion to the depth allowed. Returns the first problem (with the path to it) or
 * `undefined`. It does not check the grammar: a text it passes may still be malformed, which
 * `JSON.parse` then reports; what it passes cannot nest, grow or name keys beyond the limits.
 */
export function scanJson(text: string, limits: JsonLimits, options: { at?: string } = {}): JsonProblem | undefined {
  const at = options.at ?? "";
  const problem = (code: JsonProblemCode, segments: ReadonlyArray<string | number>, detail?: string): JsonProblem => {
    const path = formatPath(at, segments);
    return { code, path, message: describeProblem(code, path, limits, detail) };
  };
  if (text.length > limits.maxLength) return problem("too-long", []);
  // Per open container: whether it is an object, and the key or index of the member being read.
  const isObject: boolean[] = [];
  const segments: Array<string | number> = [];
  let expectKey = false;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      if (expectKey) {
        expectKey = false;
        const key = keyOf(text, start, i);
        segments[segments.length - 1] = key;
        if (limits.forbiddenKeys?.has(key)) return problem("forbidden-key", segments, key);
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++values > limits.maxValues) return problem("too-many-values", segments);
      if (isObject.length >= limits.maxDepth) return problem("too-deep", segments);
      const object = c === OPEN_OBJECT;
      isObject.push(object);
      segments.push(object ? "" : 0);
      expectKey = object;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      isObject.pop();
      segments.pop();
      expectKey = false;
    } else if (c === COMMA) {
      if (++values > limits.maxValues) return problem("too-many-values", segments);
      const depth = isObject.length - 1;
      if (depth < 0) continue;
      if (isObject[depth]) expectKey = true;
      else segments[depth] = (segments[depth] as number) + 1;
    } else if (c === COLON) {
      expectKey = false;
    }
  }
  return undefined;
}

/** The key between quotes at `start` and `end`, unescaped when short enough to matter. */
function keyOf(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  if (!raw.includes("\\")) return raw;
  if (end - start > KEY_TEXT_CHECKED) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return raw;
  }
}
