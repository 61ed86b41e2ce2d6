/**
 * Attempts, backoff and the request timeout, shared by every adapter. The SDKs' own retries are
 * switched off (`maxRetries: 0`): they sleep through a Retry-After of any length without watching
 * the caller's signal, and their timeout stops at the response headers, so a stalled stream would
 * hang. Here each attempt gets its own deadline covering the whole stream, sleeps are abortable,
 * and a Retry-After longer than `maxRetryAfterMs` fails at once with a clear error.
 */
import { LlmError, type LlmErrorCode } from "./errors.js";
import { responseTooLarge } from "./response-cap.js";
import type { RetryInfo } from "./provider.js";

export interface RetryPolicy {
  /** Attempts in all, the first included (1 = no retry). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest Retry-After we honour by waiting; a longer one fails the call. */
  maxRetryAfterMs: number;
  /** Deadline of one attempt, from the request to the end of its stream. */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 600_000,
};

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryOptions {
  policy: RetryPolicy;
  /** Label for messages, e.g. `anthropic claude-sonnet-4-5`. */
  label: string;
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  sleep?: Sleep;
  random?: () => number;
  /** False once a failed attempt must not be repeated (it already streamed text to the caller). */
  canRetry?: () => boolean;
}

interface Failure {
  code: LlmErrorCode;
  retryable: boolean;
  message: string;
  status?: number;
  retryAfterMs?: number;
}

export const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Runs `attempt` until it succeeds, fails for good, or the attempts run out. */
export async function withRetries<T>(attempt: (signal: AbortSignal, n: number) => Promise<T>, options: RetryOptions): Promise<{ value: T; attempts: number }> {
  const { policy, signal, label } = options;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw aborted(label, n - 1, signal.reason);
    // The attempt's own signal: the caller's or the deadline, whichever fires first. Linked by
    // hand and unlinked when the attempt ends: `AbortSignal.any` keeps every attempt attached to
    // the caller's signal for its whole life, so a run that aborted its signal at the end fired the
    // listeners of every request it had made.
    const attemptController = new AbortController();
    let timedOutNow = false;
    const timer = setTimeout(() => {
      timedOutNow = true;
      attemptController.abort(new Error("request timeout"));
    }, policy.timeoutMs);
    const onAbort = () => attemptController.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return { value: await attempt(attemptController.signal, n), attempts: n };
    } catch (error) {
      if (signal?.aborted) throw aborted(label, n, error);
      const failure = timedOutNow ? timedOut(policy.timeoutMs) : classify(error);
      const last = n >= policy.maxAttempts || !failure.retryable || options.canRetry?.() === false;
      const tooLong = failure.retryable && failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs;
      if (last || tooLong) {
        const why = tooLong
          ? `the provider asked to retry after ${Math.ceil((failure.retryAfterMs ?? 0) / 1000)} s, longer than the ${policy.maxRetryAfterMs / 1000} s we wait`
          : n > 1
            ? `after ${n} attempts`
            : "";
        throw new LlmError(failure.code, `${label}: ${failure.message}${why ? ` (${why})` : ""}`, {
          providerStatus: failure.status,
          attempts: n,
          cause: error,
        });
      }
      const delayMs = failure.retryAfterMs ?? backoff(n, policy, random);
      options.onRetry?.({ attempt: n, delayMs, reason: failure.message, ...(failure.status === undefined ? {} : { status: failure.status }) });
      try {
        await sleep(delayMs, signal);
      } catch (reason) {
        throw aborted(label, n, reason);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** Exponential backoff with "equal jitter": half the delay fixed, half random. */
export function backoff(failedAttempt: number, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">, random: () => number = Math.random): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

/**
 * Milliseconds from `retry-after-ms` (non-standard, sent by OpenAI and Anthropic) or `retry-after`
 * (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), or undefined.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  // An HTTP-date names its weekday and month; Date.parse alone would take "-5" as a year.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function aborted(label: string, attempts: number, cause: unknown): LlmError {
  return new LlmError("llm_aborted", `${label}: the call was cancelled`, { attempts, cause });
}

function timedOut(ms: number): Failure {
  return { code: "llm_timeout", retryable: true, message: `no complete response within ${ms} ms` };
}

interface StatusErrorLike {
  status: number;
  message: string;
  headers?: { get(name: string): string | null };
}

function isStatusError(error: unknown): error is StatusErrorLike {
  return error instanceof Error && typeof (error as { status?: unknown }).status === "number";
}

/** What a thrown error means for retrying; duck-typed over both SDKs' `APIError` shapes. */
export function classify(error: unknown): Failure {
  if (error instanceof LlmError) return { code: error.code, retryable: false, message: error.message };
  // The SDKs may wrap what the capped fetch threw; an oversized answer is never asked for again.
  const tooLarge = responseTooLarge(error);
  if (tooLarge !== undefined) return { code: tooLarge.code, retryable: false, message: tooLarge.message };
  if (!isStatusError(error)) {
    const message = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}` : String(error);
    return { code: "llm_connection", retryable: true, message: `connection failed: ${message}` };
  }
  const { status } = error;
  const retryAfter = retryAfterMs(error.headers);
  const base = { status, message: error.message, ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }) };
  const should = error.headers?.get("x-should-retry");
  const code: LlmErrorCode =
    status === 401 || status === 403 ? "llm_auth" : status === 429 ? "llm_rate_limited" : status === 408 || status === 409 || status >= 500 ? "llm_unavailable" : "llm_bad_request";
  const retryable = should === "true" ? true : should === "false" ? false : code === "llm_rate_limited" || code === "llm_unavailable";
  return { code, retryable, ...base };
}
