import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import * as v from "valibot";
import { ClawhiveError } from "../../errors.js";
import { StoreError } from "../../store/index.js";
import { ApiError, errorBody } from "./api-error.js";
import type { ErrorBody } from "./api-error.js";
import { issuesError } from "./issues.js";
import { requestLogger } from "./request-log.js";
import type { ApiEnv } from "../auth/index.js";

/** Called with every error answered 5xx, for the operator's log; the caller sees none of it. */
export type InternalErrorLog = (error: unknown, where: string) => void;

export interface ErrorHandlerOptions {
  /** Default: an error record with the stack in the request's log (request_id, trace_id). */
  readonly log?: InternalErrorLog;
}


/**
 * Every error becomes `{error: {code, message, field?}}` with its status. What is shown is what
 * was written for the caller — a `ClawhiveError`'s message, the field a valibot issue names —
 * and nothing else: no stack, no `cause`, no driver text (a `StoreError` wraps the database's
 * own message, which may name files), and a plain `Error` is only `internal error`.
 */
export function errorHandler(options: ErrorHandlerOptions = {}): ErrorHandler {
  return (error, c) => {
    const log: InternalErrorLog = options.log ?? ((e, where) => requestLogger(c as Context<ApiEnv>).error({ err: e, where }, "request failed"));
    const answer = answerFor(error);
    if (answer instanceof Response) return answer;
    if (answer.status >= 500) log(error, `${c.req.method} ${c.req.path}`);
    return c.json(answer.body, answer.status, answer.headers);
  };
}

/**
 * Hono hands only `Error` instances to the error handler; anything else thrown (a string, a
 * plain object) escapes to the server adapter, which answers with an empty 500 — or worse. The
 * first middleware wraps such a value in an Error so `errorHandler` answers it like any other.
 */
export function catchNonErrors(): MiddlewareHandler {
  return async (_c, next) => {
    try {
      await next();
    } catch (thrown) {
      if (thrown instanceof Error) throw thrown;
      throw new Error("a non-Error value was thrown", { cause: thrown });
    }
  };
}

/** A JSON 404 that names the method and the path as the router saw it. */
export const notFoundHandler: NotFoundHandler = (c: Context) =>
  c.json(errorBody("not_found", `no route for ${c.req.method} ${c.req.path}`), 404);

interface Answer {
  status: ContentfulStatusCode;
  body: ErrorBody;
  headers?: Record<string, string>;
}

const INTERNAL: Answer = { status: 500, body: errorBody("internal", "internal error") };

/** A `Response` is one already shaped as ours: bearer auth's, which carries `WWW-Authenticate`. */
function answerFor(error: unknown): Answer | Response {
  const answer = firstAnswer(error);
  if (answer instanceof Response || answer.status < 500) return answer;
  return retryLater(answer, error);
}

/**
 * What the store answers while it cannot serve: 503 with the seconds after which a retry may
 * work. What a caller is told not to retry (effects happened) is left as it is.
 */
const UNAVAILABLE: Readonly<Record<string, { message: string; retryAfter: string }>> = {
  store_busy: { message: "the store is busy: retry shortly", retryAfter: "1" },
  store_unreachable: { message: "the store cannot be reached: retry shortly; /ready says when this node can serve again", retryAfter: "5" },
  store_timeout: { message: "the store did not answer in time: retry shortly; /ready says when this node can serve again", retryAfter: "5" },
  store_read_only: { message: "the store is read-only: reads work, writes are refused until it is writable again", retryAfter: "30" },
  store_full: { message: "the store's disk is full: reads work, writes are refused until space is freed", retryAfter: "30" },
};
const NEVER_RETRIED = new Set(["effect_committed_store_failed"]);

/**
 * A 5xx caused by a store that cannot serve now — the store's own error, or one wrapping it (an
 * audit write that failed, a run whose end could not be recorded, a plain Error with it as its
 * cause) — is a 503 with `Retry-After`, not an internal error: the request may work once the
 * store is back. A ClawhiveError keeps its own code and message; anything else gets the store's.
 */
function retryLater(answer: Answer, error: unknown): Answer {
  if (NEVER_RETRIED.has(answer.body.error.code)) return answer;
  const store = unavailableStoreIn(error);
  if (store === undefined) return answer;
  const said = UNAVAILABLE[store.code]!;
  const body = error instanceof ClawhiveError && !(error instanceof StoreError) ? answer.body : errorBody(store.code, said.message);
  return { status: 503, body, headers: { ...answer.headers, "Retry-After": said.retryAfter } };
}

/** The StoreError in `error`'s cause chain (or an AggregateError's errors) that says the store is unavailable. */
function unavailableStoreIn(error: unknown, depth = 0): StoreError | undefined {
  if (depth > 8 || !(error instanceof Error)) return undefined;
  if (error instanceof StoreError && UNAVAILABLE[error.code] !== undefined) return error;
  const inner = error instanceof AggregateError ? [...(error.errors as unknown[]), error.cause] : [error.cause];
  for (const e of inner) {
    const found = unavailableStoreIn(e, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function firstAnswer(error: unknown): Answer | Response {
  if (error instanceof v.ValiError) return answerFor(issuesError(error.issues, "input", error));
  if (error instanceof StoreError) {
    // Unavailable codes become 503 in retryLater; the driver's own text never leaves.
    return { status: 500, body: errorBody(error.code, "internal error: the store failed") };
  }
  if (error instanceof ClawhiveError) {
    const field = "field" in error && typeof error.field === "string" ? error.field : undefined;
    // Errors written for clients to act on (runs/errors.ts) carry their data along.
    const details = "details" in error && typeof error.details === "object" && error.details !== null ? (error.details as Record<string, unknown>) : undefined;
    return {
      status: statusOf(error.status),
      body: errorBody(error.code, error.message, field, details),
      ...(error instanceof ApiError ? { headers: { ...error.headers } } : {}),
    };
  }
  if (error instanceof HTTPException) return answerForHttpException(error);
  return INTERNAL;
}

/** Hono's own middleware throws these: bearer auth, or a route using Hono's validators directly. */
function answerForHttpException(error: HTTPException): Answer | Response {
  if (error.status >= 500) return INTERNAL;
  const status = statusOf(error.status);
  const res = error.res;
  if (res !== undefined && (res.headers.get("content-type") ?? "").startsWith("application/json")) return res;
  return { status, body: errorBody(codeFor(status), error.message === "" ? `request refused (${status})` : error.message) };
}

function codeFor(status: number): string {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 413) return "body_too_large";
  if (status === 429) return "too_many_requests";
  return "invalid_input";
}

function statusOf(status: number): ContentfulStatusCode {
  return (Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500) as ContentfulStatusCode;
}
