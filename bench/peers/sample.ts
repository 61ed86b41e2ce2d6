/**
 * Timing samples shared by the bench peers and `bench/run.ts`: one `Sample` shape, one
 * percentile rule, one loop, so every figure printed side by side is measured the same way.
 */

/** Durations of one measured operation, in microseconds. */
export interface Sample {
  /** Every timed iteration, sorted ascending. */
  readonly durationsUs: readonly number[];
  readonly p50: number;
  readonly p95: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
}

/** How many times a peer runs one phase. */
export interface LoopCounts {
  /** Timed iterations. Default 1000 in `timeLoop`; each peer sets its own. */
  iterations?: number;
  /** Untimed iterations run first (lazy compilation, tier-up, inline caches). Default 10% of `iterations`, at least 5. */
  warmup?: number;
}

export interface LoopOptions<T = unknown> extends LoopCounts {
  /** Runs after each iteration, warmup included, outside the timed span: release what `fn` made. */
  after?: (result: T) => unknown;
}

/** Both phases of a peer: a ready-to-call instance, and one call on a ready instance. */
export interface PeerFigures {
  readonly instanceReady: Sample;
  readonly call: Sample;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest value with at least `p`% of the
 * values at or below it. `NaN` for an empty array.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be within 0..100: ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** A `Sample` from durations in microseconds, in any order. */
export function toSample(durationsUs: Iterable<number>): Sample {
  const sorted = Float64Array.from(durationsUs).sort();
  const values = Array.from(sorted);
  let sum = 0;
  for (const value of values) sum += value;
  return {
    durationsUs: values,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    min: values[0] ?? Number.NaN,
    max: values[values.length - 1] ?? Number.NaN,
    mean: values.length === 0 ? Number.NaN : sum / values.length,
  };
}

/**
 * Times `fn` `iterations` times with `process.hrtime.bigint()`. A promise returned by `fn` is
 * awaited inside the timed span (its settling is part of the operation); a plain value is not
 * awaited, so synchronous work pays no microtask.
 */
export async function timeLoop<T>(fn: () => T | PromiseLike<T>, options: LoopOptions<T> = {}): Promise<Sample> {
  const iterations = options.iterations ?? 1000;
  const warmup = options.warmup ?? Math.max(5, Math.ceil(iterations / 10));
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new RangeError(`timeLoop: iterations must be a positive integer: ${iterations}`);
  }
  if (!Number.isInteger(warmup) || warmup < 0) {
    throw new RangeError(`timeLoop: warmup must be a non-negative integer: ${warmup}`);
  }
  const after = options.after;
  const durations = new Float64Array(iterations);
  for (let i = -warmup; i < iterations; i++) {
    const start = process.hrtime.bigint();
    let result = fn();
    if (isPromiseLike(result)) result = await result;
    const end = process.hrtime.bigint();
    if (i >= 0) durations[i] = Number(end - start) / 1000;
    if (after !== undefined) {
      const done = after(result as T);
      if (isPromiseLike(done)) await done;
    }
  }
  return toSample(durations);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
