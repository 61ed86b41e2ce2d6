import { metricsHandler } from "../../metrics/index.js";
import type { RuntimeMetrics } from "../../metrics/index.js";
import type { Runtime } from "../../runtime.js";
import { openApiDocument } from "../openapi.js";
import type { OpenApiInfo } from "../openapi.js";
import { defineRoute } from "./route.js";
import type { ApiRoute } from "./route.js";

/** `GET /health`: no token; with a runtime, also what it has loaded. */
export function healthRoute(version: string, runtime: Runtime | undefined): ApiRoute {
  return defineRoute({
    method: "GET",
    path: "/health",
    tag: "service",
    summary: "Liveness, version, and what the runtime has loaded (no token needed)",
    roles: "public",
    responses: { 200: { description: "`{status: \"ok\", version, plugins?, tools?, sandbox?}`" } },
    handler: (c) =>
      c.json({
        status: "ok",
        version,
        ...(runtime === undefined ? {} : { plugins: runtime.plugins().length, tools: runtime.tools().length, sandbox: runtime.sandbox.stats() }),
      }),
  });
}

/** `GET /metrics`: Prometheus text; no API token (a scraper's own, `server.metrics_token`, when set). */
export function metricsRoute(metrics: RuntimeMetrics): ApiRoute {
  const handler = metricsHandler(metrics);
  return defineRoute({
    method: "GET",
    path: "/metrics",
    tag: "service",
    summary: "Prometheus metrics (text format 0.0.4; no API token; the metrics token when server.metrics_token is set)",
    roles: "public",
    responses: { 200: { description: "the metrics", mediaType: "text/plain" } },
    handler: async (c) => (await handler(c, async () => {})) as Response,
  });
}

/**
 * `GET /v1/openapi.json`: the document of `routes()` — every route the app mounted, this one
 * included — built once, on first request.
 */
export function openApiRoute(routes: () => readonly ApiRoute[], info: OpenApiInfo): ApiRoute {
  let document: Record<string, unknown> | undefined;
  return defineRoute({
    method: "GET",
    path: "/v1/openapi.json",
    tag: "service",
    summary: "This API's OpenAPI 3.1 document, generated from the schemas that validate its requests",
    roles: ["admin", "approver", "client"],
    responses: { 200: { description: "an OpenAPI 3.1 document" } },
    handler: (c) => c.json((document ??= openApiDocument(routes(), info))),
  });
}
