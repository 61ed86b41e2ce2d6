/**
 * The log lines a run may write: a token bucket refilled at the grant's `log.per_minute`, and a
 * total over the run's life. It is taken before a line is decided or audited, so a guest that
 * floods the log costs a counter, not an audit row per line: what is refused is counted, and
 * the run records the count once (see runtime/runs).
 */

export interface LineBudgetOptions {
  /** Sustained lines per minute; also the burst (the bucket starts full). */
  perMinute: number;
  /** Lines over the budget's life (default 10,000). */
  maxLines?: number;
  /** Milliseconds clock, injectable for tests. */
  now?: () => number;
}

export interface LineBudget {
  /** One line's worth, or false (the line is dropped and counted). */
  take(): boolean;
  readonly perMinute: number;
  /** Lines refused so far. */
  readonly dropped: number;
}

export function createLineBudget(options: LineBudgetOptions): LineBudget {
  const perMinute = options.perMinute;
  if (!Number.isFinite(perMinute) || perMinute <= 0) throw new RangeError(`log budget: perMinute must be a positive number, got ${perMinute}`);
  const maxLines = options.maxLines ?? 10_000;
  const now = options.now ?? Date.now;
  let tokens = perMinute;
  let last = now();
  let kept = 0;
  let dropped = 0;
  return {
    perMinute,
    get dropped() {
      return dropped;
    },
    take() {
      const t = now();
      tokens = Math.min(perMinute, tokens + ((t - last) / 60_000) * perMinute);
      last = t;
      if (tokens < 1 || kept >= maxLines) {
        dropped++;
        return false;
      }
      tokens -= 1;
      kept++;
      return true;
    },
  };
}
