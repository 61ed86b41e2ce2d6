/** The http proxy's caps and timeouts, fixed at creation. */
import { InvalidInputError } from "../../runtime/errors.js";

export interface HttpLimits {
  /** Decoded response bytes returned at most; a request's `maxBytes` can only lower it. Default 10 MiB. */
  maxResponseBytes: number;
  /** Request body bytes sent at most. Default 10 MiB. */
  maxRequestBytes: number;
  /** Whole fetch (all hops, body included) when the request names none. Default 30 s. */
  defaultTimeoutMs: number;
  /** A request's `timeoutMs` is clamped to this. Default 120 s. */
  maxTimeoutMs: number;
  /** From socket creation to TCP connect, per hop. Default 10 s. */
  connectTimeoutMs: number;
  /** Default 5 (Fetch allows 20; an agent needs far fewer, and each hop costs a check). */
  maxRedirects: number;
  /** Response header fields. Default 100. */
  maxResponseHeaders: number;
  /** Response head size (Node's `maxHeaderSize`). Default 16 KiB. */
  maxResponseHeaderBytes: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  maxResponseBytes: 10 * 1024 * 1024,
  maxRequestBytes: 10 * 1024 * 1024,
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: 120_000,
  connectTimeoutMs: 10_000,
  maxRedirects: 5,
  maxResponseHeaders: 100,
  maxResponseHeaderBytes: 16 * 1024,
});

/** The limits with defaults filled; throws `InvalidInputError` naming a bad field. */
export function checkLimits(options: Partial<HttpLimits>): HttpLimits {
  const limits = { ...DEFAULT_HTTP_LIMITS };
  for (const key of Object.keys(DEFAULT_HTTP_LIMITS) as (keyof HttpLimits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    const min = key === "maxRedirects" || key === "maxResponseBytes" ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < min) throw new InvalidInputError(`${key}: expected a whole number ≥ ${min}`, { field: key });
    limits[key] = value;
  }
  if (limits.defaultTimeoutMs > limits.maxTimeoutMs) {
    throw new InvalidInputError("defaultTimeoutMs: must not exceed maxTimeoutMs", { field: "defaultTimeoutMs" });
  }
  return limits;
}
