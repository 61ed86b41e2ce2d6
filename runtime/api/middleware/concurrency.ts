import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";

export const DEFAULT_MAX_IN_FLIGHT = 64;

export interface ConcurrencyCapOptions {
  /** Requests served at once; the next one is answered 429. Default 64. */
  readonly max?: number;
  /** The `Retry-After` of a 429, in seconds. Default 1. */
  readonly retryAfterSeconds?: number;
}

/**
 * Answers 429 (with `Retry-After`) while `max` requests are already being served, so a burst
 * queues at the client instead of piling work (store reads, sandbox calls) into this process.
 * A request counts from the moment it passes this middleware until its handler has returned its
 * response: a streamed body (SSE) is not counted once it is streaming — cap streams where they
 * are opened.
 */
export function capConcurrency(options: ConcurrencyCapOptions = {}): MiddlewareHandler {
  const max = options.max ?? DEFAULT_MAX_IN_FLIGHT;
  const retryAfter = options.retryAfterSeconds ?? 1;
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`capConcurrency: max ${max}: expected a whole number ≥ 1`);
  let inFlight = 0;
  return async (_c, next) => {
    if (inFlight >= max) {
      throw new ApiError("too_many_requests", `the API is serving its limit of ${max} requests at once: retry after ${retryAfter} s`, {
        status: 429,
        headers: { "Retry-After": String(retryAfter) },
      });
    }
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  };
}
