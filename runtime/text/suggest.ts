/**
 * "Did you mean": the known names closest to a mistyped one, by edit distance (Damerau, so a
 * swapped pair of letters costs one). Only the closest names are offered, and only when they
 * are one edit away (two for names longer than four), so a suggestion is a likely typo, never
 * a guess at intent.
 */

export function suggest(typed: string, known: Iterable<string>, options: { max?: number } = {}): string[] {
  const limit = typed.length <= 4 ? 1 : 2;
  const scored: Array<{ name: string; distance: number }> = [];
  for (const name of new Set(known)) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    // A prefix typed in full (`sched` for `schedule`) counts as close too.
    const close = distance <= limit || (typed.length >= 3 && name.toLowerCase().startsWith(typed.toLowerCase()));
    if (close && name !== typed) scored.push({ name, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  const best = scored[0]?.distance;
  return scored.filter((s) => s.distance === best).slice(0, options.max ?? 3).map((s) => s.name);
}

/** `; did you mean X?` (or `X or Y`), empty when nothing is close. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const names = suggest(typed, known);
  if (names.length === 0) return "";
  const quoted = names.map((n) => `'${n}'`);
  return `; did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`}?`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Math.max(a.length, b.length);
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
