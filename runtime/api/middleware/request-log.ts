/**
 * A valid `traceparent` is the caller's trace: the runs the request starts join it (telemetry/caller-trace.ts).
 * One request id per API request: the caller's `X-Request-Id` when it is a plain token, else a
 * new one; answered back in `X-Request-Id`, and on every log line written for the request
 * (`request_id`, and `trace_id` when a valid `traceparent` came with it).
 */
import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { runtimeLogger, type Logger } from "../../log/index.js";
import { parseTraceparent } from "../../telemetry/traceparent.js";
import { withCallerTrace } from "../../telemetry/caller-trace.js";
import type { ApiEnv } from "../auth/index.js";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestLog(base?: () => Logger): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const given = c.req.header("x-request-id");
    const requestId = given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
    const parent = parseTraceparent(c.req.header("traceparent"));
    const log = (base ?? runtimeLogger)().child({ request_id: requestId, ...(parent === undefined ? {} : { trace_id: parent.traceId }) });
    c.set("log", log);
    c.set("requestId", requestId);
    const started = performance.now();
    try {
      await withCallerTrace(parent, next);
    } finally {
      c.header("X-Request-Id", requestId);
      log.info({ method: c.req.method, path: c.req.path, status: c.res.status, duration_ms: Math.round(performance.now() - started) }, "request");
    }
  };
}

/** The request's logger (with its request id), or the runtime's outside a request. */
export function requestLogger(c: Context<ApiEnv>): Logger {
  return c.get("log") ?? runtimeLogger();
}
