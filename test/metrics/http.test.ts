import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { createRuntimeMetrics, httpMetrics, metricsHandler, Registry } from "../../runtime/metrics/index.js";
import { parseExposition, sample, sum } from "./exposition.js";

function app() {
  const metrics = createRuntimeMetrics();
  const hono = new Hono();
  hono.use("*", httpMetrics(metrics));
  // Middleware after it, as in the API: a catch-all, and one scoped to /v1 that may answer.
  hono.use("*", async (_, next) => next());
  hono.use("/v1/*", async (c, next) => (c.req.header("authorization") === "Bearer no" ? c.json({ error: { code: "unauthorized" } }, 401) : next()));
  hono.use("*", async (_, next) => next());
  hono.get("/v1/runs/:id", (c) => c.json({ id: c.req.param("id") }));
  hono.post("/v1/runs", () => {
    throw new Error("boom");
  });
  hono.get("/metrics", metricsHandler(metrics));
  hono.notFound((c) => c.json({ error: { code: "not_found" } }, 404));
  hono.onError((_, c) => c.json({ error: { code: "internal" } }, 500));
  return { hono, metrics };
}

test("GET /metrics answers the exposition format 0.0.4", async () => {
  const { hono } = app();
  const response = await hono.request("/metrics");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(response.headers.get("cache-control"), "no-store");
  const exposition = parseExposition(await response.text());
  // Every metric is declared with its type, even before anything happened.
  for (const [name, type] of [
    ["clawhive_runs_started_total", "counter"],
    ["clawhive_runs_ended_total", "counter"],
    ["clawhive_tool_calls_total", "counter"],
    ["clawhive_host_call_denials_total", "counter"],
    ["clawhive_approvals_requested_total", "counter"],
    ["clawhive_approvals_decided_total", "counter"],
    ["clawhive_tool_call_duration_seconds", "histogram"],
    ["clawhive_sandbox_instance_create_duration_seconds", "histogram"],
    ["clawhive_sandbox_workers", "gauge"],
    ["clawhive_sandbox_instances", "gauge"],
    ["clawhive_sandbox_pooled_instances", "gauge"],
    ["clawhive_llm_tokens_total", "counter"],
    ["clawhive_http_requests_total", "counter"],
  ] as const) {
    assert.equal(exposition.types.get(name.replace(/_total$/, "")) ?? exposition.types.get(name), type, name);
  }
  assert.equal(sample(exposition, "clawhive_runs_started_total")?.value, 0);
});

test("requests are counted by route pattern and status, never by raw path", async () => {
  const { hono, metrics } = app();
  for (const id of ["run_a", "run_b", "run_c"]) assert.equal((await hono.request(`/v1/runs/${id}`)).status, 200);
  assert.equal((await hono.request("/v1/runs", { method: "POST" })).status, 500);
  assert.equal((await hono.request("/no/such/thing")).status, 404);
  assert.equal((await hono.request("/v1/nothing/here")).status, 404);
  assert.equal((await hono.request("/v1/runs/run_d", { headers: { authorization: "Bearer no" } })).status, 401);
  assert.equal((await hono.request("/v1/runs/x", { method: "BREW" })).status, 404);
  const exposition = parseExposition(await metrics.metrics());
  assert.equal(sample(exposition, "clawhive_http_requests_total", { method: "GET", route: "/v1/runs/:id", status: "200" })?.value, 3);
  assert.equal(sample(exposition, "clawhive_http_requests_total", { method: "POST", route: "/v1/runs", status: "500" })?.value, 1);
  assert.equal(sample(exposition, "clawhive_http_requests_total", { method: "GET", route: "unmatched", status: "404" })?.value, 2);
  assert.equal(sample(exposition, "clawhive_http_requests_total", { method: "GET", route: "/v1/*", status: "401" })?.value, 1);
  assert.equal(sample(exposition, "clawhive_http_requests_total", { method: "OTHER", route: "unmatched", status: "404" })?.value, 1);
  assert.equal(sum(exposition, "clawhive_http_request_duration_seconds_count", { route: "/v1/runs/:id" }), 3);
  assert.ok(!exposition.samples.some((s) => Object.values(s.labels).some((v) => v.includes("run_a"))), "no id becomes a label value");
});

test("metricsHandler serves any registry, e.g. one shared with other metrics", async () => {
  const registry = new Registry();
  createRuntimeMetrics(registry);
  const hono = new Hono();
  hono.get("/metrics", metricsHandler(registry));
  const exposition = parseExposition(await (await hono.request("/metrics")).text());
  assert.equal(exposition.types.get("clawhive_runs_active"), "gauge");
});
