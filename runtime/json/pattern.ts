/**
 * The regular-expression engine a tool's JSON Schema gets (`pattern`, `patternProperties`).
 * Schemas come from plugins, inputs from models and clients, and the check runs on the main
 * thread, so a pattern that can backtrack exponentially is refused when the schema is compiled:
 * a quantified group that itself holds a quantifier or an alternation (`(a+)+`, `(a|a)*`), and
 * backreferences. Patterns with several unbounded quantifiers can still backtrack polynomially:
 * they are tried on strings up to `PATTERN_INPUT_MAX` characters only.
 */
export const PATTERN_INPUT_MAX = 10_000;

/** A string too long for a schema pattern to be tried on (see `PATTERN_INPUT_MAX`). */
export class PatternInputTooLong extends Error {
  constructor(readonly pattern: string) {
    super(`longer than ${PATTERN_INPUT_MAX} characters, the most the schema's pattern ${JSON.stringify(pattern.slice(0, 60))} is tried on`);
  }
}

/** The engine ajv calls at compile time; throws on a pattern refused as above. */
export function boundedRegExp(pattern: string, flags: string): { test(s: string): boolean; toString(): string } {
  const risk = backtrackingRisk(pattern);
  if (risk) throw new Error(`pattern ${JSON.stringify(pattern.slice(0, 80))}: ${risk}; use a simpler pattern`);
  const regExp = new RegExp(pattern, flags);
  const bounded = unboundedQuantifiers(pattern) > 1;
  return {
    // ajv keys its compiled patterns by this text: it must differ from pattern to pattern.
    toString: () => regExp.toString(),
    test(s: string): boolean {
      if (bounded && s.length > PATTERN_INPUT_MAX) throw new PatternInputTooLong(pattern);
      regExp.lastIndex = 0;
      return regExp.test(s);
    },
  };
}
boundedRegExp.code = "boundedRegExp";

interface Group {
  quantified: boolean;
  alternation: boolean;
}

/** Why `pattern` may backtrack exponentially, or `undefined`. A linear pass over its syntax. */
function backtrackingRisk(pattern: string): string | undefined {
  const groups: Group[] = [{ quantified: false, alternation: false }];
  let closed: Group | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const justClosed = closed;
    closed = undefined;
    if (c === "\\") {
      if (/[1-9k]/.test(pattern[i + 1] ?? "")) return "a backreference can backtrack exponentially";
      i++;
    } else if (c === "[") {
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
    } else if (c === "(") {
      groups.push({ quantified: false, alternation: false });
    } else if (c === ")" && groups.length > 1) {
      closed = groups.pop()!;
      // What a group holds, its enclosing group holds too: `((a+)b)+` repeats a repetition.
      const outer = groups[groups.length - 1]!;
      outer.quantified ||= closed.quantified;
      outer.alternation ||= closed.alternation;
    } else if (c === "|") {
      groups[groups.length - 1]!.alternation = true;
    } else if (isQuantifier(pattern, i)) {
      if (justClosed && (justClosed.quantified || justClosed.alternation)) {
        return "a repeated group that holds a repetition or an alternation can backtrack exponentially";
      }
      groups[groups.length - 1]!.quantified = true;
    }
  }
  return undefined;
}

/** `*`, `+` or a `{n,}`/`{n,m}` with m > 1 at `i` (a `?` repeats nothing). */
function isQuantifier(pattern: string, i: number): boolean {
  const c = pattern[i];
  if (c === "*" || c === "+") return true;
  if (c !== "{") return false;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
  if (!m) return false;
  return m[2] !== undefined && (m[3] === "" || Number(m[3]) > 1);
}

function unboundedQuantifiers(pattern: string): number {
  return (pattern.replace(/\\./g, "").match(/[*+]|\{\d+,\}/g) ?? []).length;
}
