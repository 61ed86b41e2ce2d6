/**
 * A search pattern compiled for the scanner (scan.ts). Regexes are JavaScript's (V8 irregexp),
 * run only in the bulk worker, whose deadline ends a catastrophic one (`(a+)+$`): measured on an
 * 8 MB tree, V8 scans 10–100× faster than a linear-time engine in JavaScript (re2js), and the
 * worker is killed, not waited on, when a pattern runs away.
 *
 * The fast paths never change what matches:
 * - a case-sensitive literal (mode `literal`, or a regex with no metacharacter) is found with
 *   `Buffer.indexOf` on the file's bytes, and only the lines it hits are decoded;
 * - a case-sensitive regex whose every match must contain some literal text (`function\s+main`
 *   must contain `function`) skips, undecoded, each file without that text.
 */

/** Longest pattern accepted. */
export const MAX_PATTERN_CHARS = 4096;

export interface CompiledPattern {
  /** Set when lines are found by bytes alone (a case-sensitive literal). */
  literal?: Buffer | undefined;
  /** Bytes every match contains: a file without them has no match. */
  required?: Buffer | undefined;
  /** Finds candidate lines over a whole file (`gm`). */
  scan: RegExp;
  /** Decides one line alone, as line-by-line grep would. */
  line: RegExp;
  /** Lookaround can see past a line's end in a whole-file scan: such patterns scan line by line. */
  perLine: boolean;
}

const META = /[\\^$.*+?()[\]{}|]/;
const LOOKAROUND = /\(\?<?[=!]/;

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** Throws `SyntaxError` for a regex V8 refuses. */
export function compilePattern(pattern: string, options: { mode: "literal" | "regex"; caseInsensitive: boolean }): CompiledPattern {
  const source = options.mode === "literal" ? escapeRegExp(pattern) : pattern;
  const flags = options.caseInsensitive ? "i" : "";
  const line = new RegExp(source, flags);
  const scan = new RegExp(source, `gm${flags}`);
  const perLine = options.mode === "regex" && LOOKAROUND.test(pattern);
  if (options.caseInsensitive) return { scan, line, perLine };
  const plain = options.mode === "literal" || !META.test(pattern);
  // A literal with a line break can match no line; an empty one matches every line (the regex does).
  if (plain && pattern !== "" && !/[\n\r]/.test(pattern)) return { literal: Buffer.from(pattern, "utf8"), scan, line, perLine };
  const required = options.mode === "regex" ? requiredLiteral(pattern) : undefined;
  return { ...(required === undefined ? {} : { required: Buffer.from(required, "utf8") }), scan, line, perLine };
}

const CLASS_ESCAPES = new Set("dDwWsSbBnrtfv0123456789cxukpPk");
const QUANTIFIER = /^\{\d+(?:,\d*)?\}/;

/**
 * The longest run of literal text that every match of `pattern` contains, or `undefined`.
 * Conservative: any alternation gives up, text inside groups and classes is not used, a
 * character followed by `*`, `?` or `{n,m}` is dropped, and so is anything outside the
 * Basic Multilingual Plane (without the `u` flag a quantifier binds to half a surrogate pair).
 */
export function requiredLiteral(pattern: string): string | undefined {
  if (pattern.includes("|")) return undefined;
  const runs: string[] = [];
  let run = "";
  let depth = 0;
  const end = (): void => {
    if (run !== "") runs.push(run);
    run = "";
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === "\\") {
      const next = pattern.charAt(i + 1);
      i++;
      if (depth > 0) continue;
      if (next === "" || CLASS_ESCAPES.has(next) || isSurrogate(next)) end();
      else run += next;
    } else if (c === "[") {
      // Skip the class: `]` right after `[` or `[^` is a member.
      let j = i + 1;
      if (pattern.charAt(j) === "^") j++;
      if (pattern.charAt(j) === "]") j++;
      while (j < pattern.length && pattern.charAt(j) !== "]") j += pattern.charAt(j) === "\\" ? 2 : 1;
      i = j;
      if (depth === 0) end();
    } else if (c === "(") {
      depth++;
      end();
    } else if (c === ")") {
      depth = Math.max(0, depth - 1);
      end();
    } else if (depth > 0) {
      continue;
    } else if (c === "*" || c === "?") {
      run = run.slice(0, -1);
      end();
    } else if (c === "{" && QUANTIFIER.test(pattern.slice(i))) {
      run = run.slice(0, -1);
      end();
      i += (QUANTIFIER.exec(pattern.slice(i))?.[0].length ?? 1) - 1;
    } else if (c === "+" || c === "." || c === "^" || c === "$" || isSurrogate(c)) {
      end();
    } else {
      run += c;
    }
  }
  end();
  const best = runs.reduce((a, b) => (b.length > a.length ? b : a), "");
  return best.length >= 2 ? best : undefined;
}

function isSurrogate(c: string): boolean {
  const code = c.charCodeAt(0);
  return code >= 0xd800 && code <= 0xdfff;
}
