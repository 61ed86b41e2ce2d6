/**
 * Name globs for labels, calendar ids, memory scopes and shell deny patterns: `*` is any run
 * of characters (including none, and including `/`), everything else is literal. There is no
 * `?`, no classes and no escaping: a tiny language keeps `globCovers` exact enough to trust.
 * The proxies match with it; the policy catalogue builds grant coverage on it.
 */

const cache = new Map<string, RegExp>();

function globRegex(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (regex === undefined) {
    const body = pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&"))
      .join(".*");
    // `s`: a value may hold any character (newlines too); `.*` must cross all of them.
    regex = new RegExp(`^${body}$`, "s");
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, regex);
  }
  return regex;
}

/** Whether `value` (a literal, never a pattern) matches `pattern`. */
export function globMatches(pattern: string, value: string): boolean {
  return globRegex(pattern).test(value);
}

/**
 * Whether every value `inner` matches is also matched by `outer`. Sound, never over-eager:
 * `inner` is read as a string in which each `*` may be consumed only by a `*` of `outer`
 * (outer's literals never contain `*`, so they cannot). If that alignment exists, every
 * expansion of inner's `*`s fits inside the outer `*` that absorbed it.
 * `a*` covers `a*b`; `*b` does not cover `a*`; `*` covers everything.
 */
export function globCovers(outer: string, inner: string): boolean {
  return globRegex(outer).test(inner);
}

/** Whether some pattern in `patterns` matches `value`. */
export function anyGlobMatches(patterns: readonly string[], value: string): boolean {
  return patterns.some((p) => globMatches(p, value));
}
