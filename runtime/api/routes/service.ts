import { metricsHandler } from "../../metrics/http.js";
import type { RuntimeMetrics } from "../../metrics/index.js";
import type { Runtime } from "../../runtime.js";
import { openApiDocument } from "../openapi.js";
import { probeStore, type StoreHealth } from "../../store/index.js";
import type { OpenApiInfo } from "../openapi.js";
import { defineRoute, reply } from "./route.js";
import { HealthBody, OpenApiBody, ReadyBody } from "../schemas/resources.js";
import type { ApiRoute } from "./route.js";

/** `GET /health`: no token; with a runtime, also what it has loaded. */
export function healthRoute(version: string, runtime: Runtime | undefined): ApiRoute {
  return defineRoute({
    method: "GET",
    path: "/health",
    tag: "service",
    summary: "Liveness, version, and what the runtime has loaded (no token needed)",
    roles: "public",
    responses: { 200: { description: "alive", schema: HealthBody } },
    handler: (c) =>
      reply(c, HealthBody, {
        status: "ok",
        version,
        ...(runtime === undefined ? {} : { plugins: runtime.plugins().length, tools: runtime.tools().length, sandbox: runtime.sandbox.stats() as unknown as Record<string, unknown> }),
      }),
  });
}

/**
 * `GET /ready`: whether this node can serve runs — its store takes a write (a store that answers
 * reads but refuses writes — read-only, full — cannot run anything) and every installed plugin is
 * loaded. 503 (same body) when not, so a load balancer sends no traffic to it; no token. Unlike
 * `/health` (liveness: the process answers), it fails while the store does.
 */
export function readyRoute(runtime: Runtime | undefined): ApiRoute {
  return defineRoute({
    method: "GET",
    path: "/ready",
    tag: "service",
    summary: "Readiness: the store takes a write and the installed plugins are loaded (no token needed)",
    roles: "public",
    responses: { 200: { description: "ready", schema: ReadyBody }, 503: { description: "not ready: `checks` says what is not" } },
    handler: async (c) => {
      const checks = { store: await storeCheck(runtime), plugins: await pluginsCheck(runtime) };
      const ready = checks.store === "ok" && checks.plugins === "ok";
      return reply(c, ReadyBody, { ready, checks }, ready ? 200 : 503);
    },
  });
}

async function storeCheck(runtime: Runtime | undefined): Promise<StoreHealth> {
  if (runtime === undefined) return "unreachable";
  return probeStore(runtime.store, { node: runtime.node, now: runtime.clock.now() });
}

async function pluginsCheck(runtime: Runtime | undefined): Promise<"ok" | "not_loaded"> {
  if (runtime === undefined) return "not_loaded";
  try {
    const loaded = new Set(runtime.plugins().map((p) => `${p.name}@${p.version}`));
    const installed = await runtime.installer.registry.list();
    return installed.every((p) => loaded.has(`${p.name}@${p.version}`)) ? "ok" : "not_loaded";
  } catch {
    return "not_loaded";
  }
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
    responses: { 200: { description: "an OpenAPI 3.1 document", schema: OpenApiBody } },
    handler: (c) => reply(c, OpenApiBody, (document ??= openApiDocument(routes(), info))),
  });
}
