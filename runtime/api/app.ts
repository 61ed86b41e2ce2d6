import { Hono } from "hono";
import { httpMetrics, metricsHandler, type RuntimeMetrics } from "../metrics/index.js";
import { runRoutes } from "./routes/runs.js";
import type { Runtime } from "../runtime.js";
import { authenticate } from "./auth/index.js";
import type { ApiEnv, TokenStore } from "./auth/index.js";
import {
  baselineHeaders,
  capConcurrency,
  catchNonErrors,
  corsFor,
  errorHandler,
  limitBody,
  notFoundHandler,
  rejectAmbiguousPaths,
} from "./middleware/index.js";
import type { CorsOptions, InternalErrorLog } from "./middleware/index.js";

export interface ApiLimits {
  /** Largest request body, chunked or not; default 1 MiB (config `server.body_limit_bytes`). */
  readonly bodyLimitBytes?: number;
  /** Requests served at once before the next is answered 429; default 64 (config `server.max_concurrent_requests`). */
  readonly maxConcurrentRequests?: number;
  /** The `Retry-After` of a 429, in seconds; default 1. */
  readonly retryAfterSeconds?: number;
}

export interface AppOptions {
  readonly version: string;
  /** The API's bearer tokens (`openTokenStore`); every `/v1` route needs one. */
  readonly tokens: TokenStore;
  /** The core the routes drive; without it `/health` reports only status and version. */
  readonly runtime?: Runtime;
  readonly limits?: ApiLimits;
  /** Off unless given a non-empty list (config `server.cors.origins`): no `Access-Control-*` header on any response. */
  readonly cors?: CorsOptions;
  /** Counts every request and serves `GET /metrics` (Prometheus text; no token, like /health). */
  readonly metrics?: RuntimeMetrics;
  /** Where 5xx errors are logged (with their stack); default stderr. */
  readonly log?: InternalErrorLog;
}

/** Where `clawhive serve` listens unless told otherwise: this machine only. */
export const DEFAULT_HOST = "127.0.0.1";

/**
 * Node `http.Server` options for `serve({ serverOptions })`: a client must send its headers
 * within 10 s and its whole request within 30 s (Node's defaults, 60 s and 300 s, let a few slow
 * clients hold connections for minutes), and headers are capped at 16 KiB. A response may take
 * as long as it needs: an SSE stream is not a slow request.
 */
export const API_SERVER_OPTIONS = { headersTimeout: 10_000, requestTimeout: 30_000, maxHeaderSize: 16 * 1024 } as const;

/**
 * The HTTP API. Every request passes, in order: the concurrency cap (429), the path check (400
 * for dot segments, encoded slashes, `//`), CORS when configured, bearer authentication for
 * `/v1/*` (400/401), and the body limit (413) — so an unauthenticated body is never read.
 * Routes then declare their role with `requireRole` (403) and validate their input with
 * `validParams` / `jsonBody` (400). Errors always answer `{error: {code, message, field?}}`;
 * nothing else (no stack trace) leaves the process. `/health` needs no token.
 */
export function createApp(options: AppOptions): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const limits = options.limits ?? {};

  app.onError(errorHandler(options.log === undefined ? {} : { log: options.log }));
  app.notFound(notFoundHandler);

  if (options.metrics) app.use("*", httpMetrics(options.metrics));
  app.use("*", catchNonErrors());
  app.use("*", baselineHeaders());
  app.use("*", capConcurrency({
    ...(limits.maxConcurrentRequests === undefined ? {} : { max: limits.maxConcurrentRequests }),
    ...(limits.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: limits.retryAfterSeconds }),
  }));
  app.use("*", rejectAmbiguousPaths());
  if (options.cors !== undefined && options.cors.origins.length > 0) app.use("*", corsFor(options.cors));
  app.use("/v1/*", authenticate(options.tokens));
  app.use("*", limitBody(limits.bodyLimitBytes === undefined ? {} : { maxBytes: limits.bodyLimitBytes }));

  const runtime = options.runtime;
  app.get("/health", (c) =>
    c.json({
      status: "ok",
      version: options.version,
      ...(runtime === undefined
        ? {}
        : { plugins: runtime.plugins().length, tools: runtime.tools().length, sandbox: runtime.sandbox.stats() }),
    }),
  );

  if (options.metrics) app.get("/metrics", metricsHandler(options.metrics));
  if (runtime) app.route("/v1/runs", runRoutes(runtime));

  return app;
}
