import { describeProblem, formatPath, type JsonLimits, type JsonProblem, type JsonProblemCode } from "./limits.js";

interface Frame {
  container: object;
  keys: ReadonlyArray<string | number>;
  next: number;
}

/**
 * Checks a value about to be written as JSON (or handed on as a ToolCall's input) against
 * `limits`, without recursion: depth, number of values, forbidden keys, cycles and what JSON
 * cannot hold (a bigint, a function). Shared references that are not cycles are allowed (JSON
 * writes them twice; the value count bounds the cost). Returns the first problem or `undefined`.
 */
export function checkJsonValue(value: unknown, limits: JsonLimits, options: { at?: string } = {}): JsonProblem | undefined {
  const at = options.at ?? "";
  const stack: Frame[] = [];
  const onPath = new Set<object>();
  const problem = (code: JsonProblemCode, extra: ReadonlyArray<string | number>, detail?: string): JsonProblem => {
    const path = formatPath(at, [...stack.map((f) => f.keys[f.next - 1]!), ...extra]);
    return { code, path, message: describeProblem(code, path, limits, detail) };
  };
  let values = 0;
  let length = 0;
  let current: unknown = value;
  for (;;) {
    if (++values > limits.maxValues) return problem("too-many-values", []);
    const kind = typeof current;
    if (kind === "bigint" || kind === "function" || kind === "symbol") return problem("not-json", [], `a ${kind} cannot be written as JSON`);
    // Strings are counted as written; other scalars as a few characters, enough to bound the total.
    length += kind === "string" ? (current as string).length + 2 : 8;
    if (length > limits.maxLength) return problem("too-long", []);
    if (current !== null && kind === "object" && typeof (current as { toJSON?: unknown }).toJSON !== "function") {
      const container = current as object;
      if (onPath.has(container)) return problem("cycle", []);
      if (stack.length >= limits.maxDepth) return problem("too-deep", []);
      const keys = Array.isArray(container) ? container.map((_, i) => i) : Object.keys(container);
      if (!Array.isArray(container) && limits.forbiddenKeys) {
        const bad = (keys as string[]).find((k) => limits.forbiddenKeys!.has(k));
        if (bad !== undefined) return problem("forbidden-key", [bad], bad);
      }
      stack.push({ container, keys, next: 0 });
      onPath.add(container);
    }
    // The next value: the next member of the innermost container that has one left.
    let frame = stack[stack.length - 1];
    while (frame && frame.next >= frame.keys.length) {
      stack.pop();
      onPath.delete(frame.container);
      frame = stack[stack.length - 1];
    }
    if (!frame) return undefined;
    current = (frame.container as Record<string | number, unknown>)[frame.keys[frame.next++]!];
  }
}
