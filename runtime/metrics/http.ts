import type { Handler, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Registry } from "prom-client";
import type { RuntimeMetrics } from "./runtime-metrics.js";

/**
 * `GET /metrics`: the registry in Prometheus text format 0.0.4
 * (`text/plain; version=0.0.4; charset=utf-8`).
 */
export function metricsHandler(source: Registry | RuntimeMetrics): Handler {
  // Told apart by shape: importing the class here would load prom-client into every app.
  const registry = "registry" in source ? source.registry : source;
  return async (c) => {
    const text = await registry.metrics();
    return c.body(text, 200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" });
  };
}

/**
 * Counts every request by method, route pattern and status, and times it. The route is the
 * pattern that answered (`/v1/runs/:id`), so ids in paths never become label values; a request
 * no route answered is `unmatched`, one a scoped middleware answered (a 401) has its pattern. Register it first (`app.use("*", httpMetrics(metrics))`)
 * so it sees the status `onError` and `notFound` set.
 */
export function httpMetrics(metrics: RuntimeMetrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const own = c.req.routeIndex;
    try {
      await next();
    } finally {
      // The last route dispatched: a handler's pattern, or a middleware's when one answered (auth's
      // `/v1/*`); a catch-all middleware's `*` means no route matched.
      const last = c.req.routeIndex === own ? "*" : routePath(c);
      const route = last === "*" || last === "/*" ? "unmatched" : last;
      metrics.recordHttpRequest({ method: c.req.method, route, status: c.res.status, seconds: (performance.now() - started) / 1000 });
    }
  };
}
