import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime, ToolCallOutcome } from "../../runtime/index.js";
import { createRuntimeMetrics, type RuntimeMetrics } from "../../runtime/metrics/index.js";
import type { SandboxEvent } from "../../runtime/sandbox/index.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";
import { parseExposition, sample, sum, type Exposition } from "./exposition.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let metrics: RuntimeMetrics;
let work: string;
const sandboxEvents: SandboxEvent[] = [];
let n = 0;

before(async () => {
  metrics = createRuntimeMetrics();
  ({ runtime, dispose } = await testRuntime({
    sandbox: {
      callTimeoutMs: 5_000,
      onEvent: (event) => {
        sandboxEvents.push(event);
        metrics.observeSandboxEvent(event);
      },
    },
  }));
  metrics.collectSandbox(() => runtime.sandbox.stats());
  work = await tempDir();
  await writeFile(join(work, "who.txt"), "me\n");
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

const scrape = async (): Promise<Exposition> => parseExposition(await metrics.metrics());
const agent = () => defineTestAgent(runtime, `m${++n}`, { mounts: [{ guest: "/work", host: work, mode: "rw" }] });
const approvalOf = (o: ToolCallOutcome) => {
  assert.equal(o.status, "approval_required", JSON.stringify(o));
  return (o as Extract<ToolCallOutcome, { status: "approval_required" }>).approval;
};
const READ = "files.read_file";
const WRITE = "files.write_file";

test("a run's tool calls, denials, approvals and end are counted from its events", async () => {
  const before = await scrape();
  const run = await runtime.startRun({ agent: await agent() });
  metrics.observeRun(run);
  metrics.observeRun(run); // twice: still one run

  assert.equal((await run.callTool(READ, { path: "/work/who.txt" })).status, "ok");
  const denied = await run.callTool(READ, { path: "/etc/passwd" });
  assert.equal(denied.status, "error");
  assert.equal((await run.callTool(READ, { path: "/work/missing.txt" })).status, "error");
  // files.write_file is Guarded: the call waits for a person.
  const approval = approvalOf(await run.callTool(WRITE, { path: "/work/new.txt", content: "x" }));
  metrics.recordApprovalDecision(await runtime.approvals.decide(approval.id, { decision: "approve", scope: "once", by: "alice" }));
  assert.equal((await run.resume())?.status, "ok");

  const during = await scrape();
  assert.equal(sum(during, "clawhive_runs_active") - sum(before, "clawhive_runs_active"), 1);
  await run.end();
  const after = await scrape();

  const delta = (name: string, labels: Record<string, string> = {}) => sum(after, name, labels) - sum(before, name, labels);
  assert.equal(delta("clawhive_runs_started_total"), 1);
  assert.equal(delta("clawhive_runs_ended_total", { status: "completed" }), 1);
  assert.equal(delta("clawhive_runs_active"), 0);
  assert.equal(delta("clawhive_tool_calls_total", { tool: READ, outcome: "ok" }), 1);
  assert.equal(delta("clawhive_tool_calls_total", { tool: READ, outcome: "denied" }), 1);
  assert.equal(delta("clawhive_tool_calls_total", { tool: READ, outcome: "error" }), 1);
  assert.equal(delta("clawhive_tool_calls_total", { tool: WRITE, outcome: "approval_required" }), 1);
  assert.equal(delta("clawhive_tool_calls_total", { tool: WRITE, outcome: "ok" }), 1);
  assert.equal(delta("clawhive_host_call_denials_total", { capability: "fs.read", reason: "outside-mount" }), 1);
  assert.equal(delta("clawhive_host_calls_total", { capability: "fs.read", outcome: "denied" }), 1);
  assert.ok(delta("clawhive_host_calls_total", { capability: "fs.read", outcome: "ok" }) >= 1);
  assert.equal(delta("clawhive_approvals_requested_total", { kind: "tool_call" }), 1);
  assert.equal(delta("clawhive_approvals_decided_total", { kind: "tool_call", result: "approved" }), 1);
  // Latencies: every executed call, not the pause for approval.
  assert.equal(delta("clawhive_tool_call_duration_seconds_count", { tool: READ }), 3);
  assert.equal(delta("clawhive_tool_call_duration_seconds_count", { tool: WRITE }), 1);
  assert.ok(delta("clawhive_tool_call_duration_seconds_sum", { tool: READ }) > 0);
  assert.equal(delta("clawhive_tool_call_duration_seconds_bucket", { tool: READ, le: "+Inf" }), 3);
  assert.ok(delta("clawhive_sandbox_instances_destroyed_total", { reason: "paused_for_approval" }) >= 1);
  assert.ok(delta("clawhive_sandbox_instances_destroyed_total", { reason: "run_ended" }) >= 1);
});

test("a run ended while it awaits an approval is counted abandoned; a denied approval is counted denied", async () => {
  const before = await scrape();
  const run = await runtime.startRun({ agent: await agent() });
  metrics.observeRun(run);
  const approval = approvalOf(await run.callTool(WRITE, { path: "/work/never.txt", content: "x" }));
  metrics.recordApprovalDecision(await runtime.approvals.decide(approval.id, { decision: "deny", by: "bob", reason: "no" }));
  await run.end();
  // Control: events after the end (observing again) count nothing more.
  metrics.observeRun(run);
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string> = {}) => sum(after, name, labels) - sum(before, name, labels);
  assert.equal(delta("clawhive_runs_started_total"), 1);
  assert.equal(delta("clawhive_runs_ended_total", { status: "abandoned" }), 1);
  assert.equal(delta("clawhive_runs_ended_total", { status: "completed" }), 0);
  assert.equal(delta("clawhive_approvals_decided_total", { kind: "tool_call", result: "denied" }), 1);
  assert.equal(delta("clawhive_runs_active"), 0);
});

test("a resumed run is counted as resumed, not started", async () => {
  const before = await scrape();
  const first = await runtime.startRun({ agent: await agent() });
  // As the runtime would hand it to the metrics from resumeRun (after a restart, or another node's).
  approvalOf(await first.callTool(WRITE, { path: "/work/r.txt", content: "r" }));
  metrics.observeRun(first, { resumed: true });
  await first.end();
  const after = await scrape();
  assert.equal(sum(after, "clawhive_runs_resumed_total") - sum(before, "clawhive_runs_resumed_total"), 1);
  assert.equal(sum(after, "clawhive_runs_started_total") - sum(before, "clawhive_runs_started_total"), 0);
});

test("instance creation latency and the pool gauges come from the sandbox", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  await run.callTool(READ, { path: "/work/who.txt" });
  await run.end();
  // The pool refills in the background: an instance may be created while the scrape runs.
  const created = (mode: "warm" | "cold") => sandboxEvents.filter((e) => e.type === "instance-created" && e.warm === (mode === "warm")).length;
  const before = { warm: created("warm"), cold: created("cold") };
  const exposition = await scrape();
  assert.ok(before.warm + before.cold > 0);
  for (const mode of ["warm", "cold"] as const) {
    const count = sum(exposition, "clawhive_sandbox_instance_create_duration_seconds_count", { mode });
    assert.ok(count >= before[mode] && count <= created(mode), `${mode}: ${count} in ${before[mode]}..${created(mode)}`);
    assert.equal(sum(exposition, "clawhive_sandbox_instance_create_duration_seconds_bucket", { mode, le: "+Inf" }), count);
  }
  const stats = runtime.sandbox.stats();
  assert.equal(sample(exposition, "clawhive_sandbox_workers")?.value, stats.workers);
  assert.ok(stats.workers > 0);
  assert.ok(sample(exposition, "clawhive_sandbox_instances") !== undefined);
  assert.ok(sample(exposition, "clawhive_sandbox_pooled_instances") !== undefined);
  assert.equal(exposition.types.get("clawhive_sandbox_instance_create_duration_seconds"), "histogram");
  assert.equal(exposition.types.get("clawhive_sandbox_workers"), "gauge");
});

test("LLM tokens are counted by provider and direction", async () => {
  const metrics = createRuntimeMetrics();
  metrics.recordLlmTokens({ provider: "anthropic", input: 1200, output: 80, cache_read: 1000 });
  metrics.recordLlmTokens({ provider: "anthropic", input: 300, output: 20 });
  metrics.recordLlmTokens({ provider: "openai", input: 5, output: Number.NaN });
  const exposition = parseExposition(await metrics.metrics());
  assert.equal(sample(exposition, "clawhive_llm_tokens_total", { provider: "anthropic", direction: "input" })?.value, 1500);
  assert.equal(sample(exposition, "clawhive_llm_tokens_total", { provider: "anthropic", direction: "output" })?.value, 100);
  assert.equal(sample(exposition, "clawhive_llm_tokens_total", { provider: "anthropic", direction: "cache_read" })?.value, 1000);
  assert.equal(sample(exposition, "clawhive_llm_tokens_total", { provider: "openai", direction: "output" }), undefined, "NaN is not counted");
  assert.equal(exposition.types.get("clawhive_llm_tokens_total"), "counter");
});

test("free-text reasons become bounded label values", async () => {
  const metrics = createRuntimeMetrics();
  for (let i = 0; i < 100; i++) metrics.observeSandboxEvent({ type: "instance-destroyed", instanceId: i, plugin: "p", reason: `odd reason ${i}` });
  metrics.observeSandboxEvent({ type: "worker-exit", workerId: 1, reason: "deadline of 5000 ms exceeded" });
  metrics.observeSandboxEvent({ type: "worker-exit", workerId: 2, reason: "deadline of 30000 ms exceeded" });
  const exposition = parseExposition(await metrics.metrics());
  const reasons = exposition.samples.filter((s) => s.name === "clawhive_sandbox_instances_destroyed_total");
  assert.ok(reasons.length <= 33, `${reasons.length} series`);
  assert.equal(sum(exposition, "clawhive_sandbox_instances_destroyed_total"), 100);
  assert.equal(sample(exposition, "clawhive_sandbox_worker_exits_total", { reason: "deadline" })?.value, 2);
});
