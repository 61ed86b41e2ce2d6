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
  if (error instanceof v.ValiError) return answerFor(issuesError(error.issues, "input", error));
  if (error instanceof StoreError) {
    if (error.code === "store_busy") return { status: 503, body: errorBody("store_busy", "the store is busy: retry shortly"), headers: { "Retry-After": "1" } };
    if (error.code === "store_read_only") return { status: 503, body: errorBody("store_read_only", "the store is read-only: reads work, writes are refused until it is writable again") };
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
