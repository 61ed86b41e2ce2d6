/**
 * The HTTP API's frame: the middleware every request passes, the service routes (`/health`,
 * `/ready`, `/metrics`, `/mcp`, the OpenAPI document) and whichever resource routes it is given.
 * It loads no resource's routes itself: a client in this process that answers over the store
 * alone (client/store-reader.ts) mounts its few routes without loading the runtime's. The
 * runtime's routes are added by app.ts.
 */
import { Hono } from "hono";
import type { ApiShutdown } from "./shutdown.js";
import type { McpEndpoint } from "../mcp/lazy.js";
import type { DownloadOptions } from "../plugins/install/index.js";
import type { RuntimeMetrics } from "../metrics/index.js";
import { httpMetrics } from "../metrics/http.js";
import type { Runtime } from "../runtime.js";
import { authenticate } from "./auth/index.js";
import type { ApiEnv, TokenStore } from "./auth/index.js";
import { limitBody } from "./middleware/body-limit.js";
import { capConcurrency } from "./middleware/concurrency.js";
import { corsFor, type CorsOptions } from "./middleware/cors.js";
import { catchNonErrors, errorHandler, notFoundHandler, type InternalErrorLog } from "./middleware/error-handler.js";
import { checkHost, type HostCheckOptions } from "./middleware/host-check.js";
import { IdempotencyRecords } from "./middleware/idempotency.js";
import { checkMcpOrigin } from "./middleware/mcp-origin.js";
import { requireMetricsToken } from "./middleware/metrics-token.js";
import { rejectAmbiguousPaths } from "./middleware/paths.js";
import { requestLog } from "./middleware/request-log.js";
import { baselineHeaders } from "./middleware/response-headers.js";
import type { Logger } from "../log/index.js";
import type { WebhookDispatcher } from "../webhooks/index.js";
import { mcpRoutes } from "./routes/mcp.js";
import { gateRoles, mountRoutes, routeBodyLimits } from "./routes/registry.js";
import type { ApiRoute } from "./routes/route.js";
import { healthRoute, metricsRoute, openApiRoute, readyRoute } from "./routes/service.js";
import type { ApprovalDecidedHook } from "./routes/approvals.js";
import type { RunOwnerLookup } from "./routes/audit.js";

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
  readonly tokens: Pick<TokenStore, "verify">;
  /** The core the routes drive; without it `/health` reports only status and version. */
  readonly runtime?: Runtime;
  readonly limits?: ApiLimits;
  /** Off unless given a non-empty list (config `server.cors.origins`): no `Access-Control-*` header on any response. */
  readonly cors?: CorsOptions;
  /** Counts every request and serves `GET /metrics` (Prometheus text; no token unless `metricsToken`). */
  readonly metrics?: RuntimeMetrics;
  /** A bearer token `GET /metrics` requires (config `server.metrics_token`); default none, like /health. */
  readonly metricsToken?: string | undefined;
  /**
   * Which `Host` headers are this server (DNS-rebinding defence, middleware/host-check.ts):
   * the listen address and `server.allowed_hosts`. Without `listen`, the loopback names only.
   */
  readonly hosts?: HostCheckOptions;
  /** Where 5xx errors are logged (with their stack); default the request's log record. */
  readonly log?: InternalErrorLog;
  /** The structured log every request writes to (with its request id); default the runtime's (`runtimeLogger`). */
  readonly logger?: Logger;
  /**
   * Called once a person's decision on an approval is stored through `POST /v1/approvals/:id`
   * (not awaited; a failure goes to `log`): e.g. resume the run that waited on it.
   */
  readonly onApprovalDecided?: ApprovalDecidedHook;
  /** Who started a run (its owner token), for what a client token may read. Default: the run records' `owner_token`. */
  readonly runOwner?: RunOwnerLookup;
  /** The agent manifests folder the runtime loaded: file agents are told apart from stored ones and named. */
  readonly agentsDir?: string;
  /** Plugin installs by URL: extra trusted CAs (a private registry's), size cap, timeout. */
  readonly pluginDownload?: DownloadOptions;
  /** Where uploaded plugin packages are written (each in a fresh private folder) before install; default the OS temp dir. */
  readonly pluginUploadDir?: string;
  /**
   * Plugin installs and upgrades may name a path (or URL) the runtime reads itself: set only by
   * the client in this process (client/in-process.ts), never by a server (see routes/plugins.ts).
   */
  readonly pluginLocalSources?: boolean;
  /**
   * Serves MCP over streamable HTTP at `/mcp?agent=NAME` (bearer token as for `/v1`; admin or
   * client role; an admin's elicitation answers decide approvals).
   */
  readonly mcp?: McpEndpoint;
  /**
   * Pushes approvals and run ends (webhooks, `GET /v1/approvals/events`); its dead letters are
   * served at `GET /v1/webhooks/dead-letters`. It reads decisions from the store, whichever path made them.
   */
  readonly webhooks?: WebhookDispatcher;
  /** The server's stop (`clawhive serve` on SIGTERM): counts requests in flight and answers `wait=true` runs as it begins. */
  readonly shutdown?: ApiShutdown;
  /** Routes declared elsewhere (`defineRoute`), mounted and documented like the built-in ones. */
  readonly routes?: readonly ApiRoute[];
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
 * The HTTP API. Every request passes, in order: the Host check (421, DNS rebinding), the concurrency cap (429), the path check (400
 * for dot segments, encoded slashes, `//`), CORS when configured, bearer authentication for
 * `/v1/*` (400/401), the role check of the declared routes (403), and the body limit (413) — so
 * the body of a caller who may not call the route is never read. Routes (`routes/`, declared
 * with `defineRoute`) then validate their path, query and body (400/415) before their handler runs. Errors always answer `{error: {code, message, field?}}`;
 * nothing else (no stack trace) leaves the process. `/health` and `/ready` need no token.
 */
export function createCoreApp(options: AppOptions, resourceRoutes: readonly ApiRoute[] = []): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const limits = options.limits ?? {};
  const routes = declaredRoutes(options, resourceRoutes);

  app.onError(errorHandler(options.log === undefined ? {} : { log: options.log }));
  app.notFound(notFoundHandler);

  if (options.shutdown !== undefined) app.use("*", options.shutdown.track());
  app.use("*", requestLog(options.logger === undefined ? undefined : () => options.logger!));
  if (options.metrics) app.use("*", httpMetrics(options.metrics));
  app.use("*", catchNonErrors());
  app.use("*", baselineHeaders());
  // Before anything else reads the request: a page that rebound its name to us gets nothing.
  app.use("*", checkHost(options.hosts));
  app.use("*", capConcurrency({
    ...(limits.maxConcurrentRequests === undefined ? {} : { max: limits.maxConcurrentRequests }),
    ...(limits.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: limits.retryAfterSeconds }),
  }));
  app.use("*", rejectAmbiguousPaths());
  if (options.cors !== undefined && options.cors.origins.length > 0) app.use("*", corsFor(options.cors));
  if (options.metricsToken !== undefined) app.use("/metrics", requireMetricsToken(options.metricsToken));
  app.use("/v1/*", authenticate(options.tokens));
  // Roles before bodies: a token that may not call a route never gets its body read.
  app.use("/v1/*", gateRoles(routes));
  // One limit for every body, except the routes that declare their own (plugin uploads).
  app.use("*", limitBody({ ...(limits.bodyLimitBytes === undefined ? {} : { maxBytes: limits.bodyLimitBytes }), limitFor: routeBodyLimits(routes) }));

  if (options.mcp !== undefined) guardMcp(app, options);
  mountRoutes(app, routes, options.runtime === undefined ? {} : { idempotency: new IdempotencyRecords(options.runtime.store) });
  return app;
}

/**
 * Every route the app serves, one list: mounted from it and documented from it
 * (`/v1/openapi.json`). Each resource's routes come from one function in `routes/`.
 */
function declaredRoutes(options: AppOptions, resourceRoutes: readonly ApiRoute[]): ApiRoute[] {
  const routes: ApiRoute[] = [healthRoute(options.version, options.runtime), readyRoute(options.runtime)];
  if (options.metrics) routes.push(metricsRoute(options.metrics));
  routes.push(...resourceRoutes);
  if (options.mcp !== undefined) routes.push(...mcpRoutes(options.mcp));
  routes.push(...(options.routes ?? []));
  routes.push(openApiRoute(() => routes, { version: options.version }));
  return routes;
}

/**
 * `/mcp` (routes/mcp.ts): the Origin check (MCP's DNS-rebinding defence) and the same bearer
 * tokens as `/v1`, before the route's own role check; the session itself is the MCP room's.
 */
function guardMcp(app: Hono<ApiEnv>, options: AppOptions): void {
  app.use("/mcp", checkMcpOrigin(options.cors?.origins ?? []));
  app.use("/mcp", authenticate(options.tokens));
}
