/** Milliseconds since the Unix epoch. Passed in, never read from a global, so tests own time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
