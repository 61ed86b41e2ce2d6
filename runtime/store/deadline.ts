import { StoreError } from "./errors.js";

/** How long one store call may take by default: a server that stops answering fails in seconds, not minutes. */
export const DEFAULT_STORE_TIMEOUT_MS = 10_000;

/**
 * What a call's deadline adds for the bytes it sends: 1 ms a KiB (1 MiB/s, a floor no working
 * link is under). A plugin install's batch moves ~14 MiB of chunks; the deadline is for a server
 * that stopped answering, not for one that is receiving.
 */
export function sendAllowanceMs(bytes: number): number {
  return Math.floor(bytes / 1024);
}

/** The most a deadline may be: a day (setTimeout's range is ~24.8 days; nobody means more). */
export const MAX_STORE_TIMEOUT_MS = 86_400_000;

export interface Deadline {
  readonly timeoutMs: number;
  /** Added to `timeoutMs` for what the call sends (`sendAllowanceMs`). */
  readonly allowanceMs?: number;
  /** Named in the error, e.g. `store http://127.0.0.1:8080`. */
  readonly location: string;
  /** What timed out, e.g. `a batch of 3 statements`. */
  readonly what: string;
  /** Runs once when the deadline passes, before the caller sees the error (drop a dead connection). */
  readonly onTimeout?: () => void;
}

/**
 * `call()`, failed with `StoreError` `store_timeout` when it has not settled within
 * `timeoutMs`. A late answer is dropped: the caller was told the call failed, and acts on that
 * (an intent not on record runs no effect). Whether a write that timed out applied cannot be
 * known here; the message says so.
 */
export function withDeadline<T>(call: () => Promise<T>, deadline: Deadline): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      try {
        deadline.onTimeout?.();
      } finally {
        reject(timeoutError(deadline));
      }
    }, deadline.timeoutMs + (deadline.allowanceMs ?? 0));
    let running: Promise<T>;
    try {
      running = call();
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // The driver's own request deadline (boundedFetch) may fire first: the same timeout.
        reject(abortedByDeadline(error) ? timeoutError(deadline) : error);
      },
    );
  });
}

/** Whether `error`, or an error it wraps, is a request aborted by `AbortSignal.timeout`. */
function abortedByDeadline(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e.name === "TimeoutError") return true;
  }
  return false;
}

export function timeoutError(deadline: Pick<Deadline, "timeoutMs" | "allowanceMs" | "location" | "what">): StoreError {
  const allowance = deadline.allowanceMs ?? 0;
  const sending = allowance > 0 ? ` and ${allowance} ms more for what it sent` : "";
  return new StoreError(
    "store_timeout",
    `store ${deadline.location}: ${deadline.what} got no answer within ${deadline.timeoutMs} ms (store.timeout_ms, env CLAWHIVE_STORE_TIMEOUT_MS)${sending}: ` +
      "it failed, and nothing that waited on it was done; a write may or may not have applied, so re-read before retrying; check that the server runs and answers",
  );
}

/** A call that waited past the deadline for a transaction of its own store to let the connection go. */
export function connectionHeldError(deadline: Pick<Deadline, "timeoutMs" | "location" | "what">): StoreError {
  return new StoreError(
    "store_timeout",
    `store ${deadline.location}: ${deadline.what} waited ${deadline.timeoutMs} ms (store.timeout_ms) for a transaction of this store to end: it failed and did nothing; ` +
      "a transaction must not wait on anything slow",
  );
}

/** `timeoutMs` as given to `openStore`: a whole number of ms from 1 to a day. */
export function checkTimeout(timeoutMs: number): boolean {
  return Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_STORE_TIMEOUT_MS;
}
