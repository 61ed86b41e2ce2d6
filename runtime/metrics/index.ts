/**
 * The metrics room: the runtime's Prometheus metrics (prom-client), fed from run and sandbox
 * events, and the Hono pieces that serve `GET /metrics` and count API requests.
 */
export { createRuntimeMetrics, RuntimeMetrics } from "./runtime-metrics.js";
export type { ObservableRun, RuntimeMetricsOptions, TokenDirection } from "./runtime-metrics.js";
export type { SandboxStats } from "./definitions.js";
export { httpMetrics, metricsHandler } from "./http.js";
export { Registry } from "prom-client";
