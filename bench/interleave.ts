/**
 * A figure and its reference measured in the same loop: blocks of each in turn, the order
 * swapped every round (A B, B A, A B, …) so neither side always runs first; each round gives one
 * ratio of the two blocks' medians, and the ratio reported is the median of those. A change of
 * the machine's load then lands on both sides of a round instead of on one side of the ratio.
 */
export interface Interleaved {
  /** Every sample of the measured side, all rounds. */
  readonly a: number[];
  /** Every sample of the reference, all rounds. */
  readonly b: number[];
  /** Median over rounds of median(a block) ÷ median(b block). */
  readonly ratio: number;
}

export async function interleaved(rounds: number, a: () => Promise<number[]>, b: () => Promise<number[]>): Promise<Interleaved> {
  const all = { a: [] as number[], b: [] as number[] };
  const ratios: number[] = [];
  for (let round = 0; round < Math.max(1, rounds); round++) {
    let blockA: number[];
    let blockB: number[];
    if (round % 2 === 0) {
      blockA = await a();
      blockB = await b();
    } else {
      blockB = await b();
      blockA = await a();
    }
    all.a.push(...blockA);
    all.b.push(...blockB);
    ratios.push(median(blockA) / median(blockB));
  }
  return { ...all, ratio: median(ratios) };
}

export function median(samples: number[]): number {
  const sorted = [...samples].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `n` timed calls of `fn`, in µs. */
export async function timedCalls(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    samples.push((performance.now() - started) * 1000);
  }
  return samples;
}
