/**
 * The span tree of real runs, exported to an in-memory exporter: run → step → model call, step →
 * tool call → host call, a sub-agent's run under its parent; the run's trace id; GenAI
 * attributes without prompt text; the model call's traceparent sent to the provider.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { Runtime } from "../../runtime/index.js";
import { startTracing, stopTracing } from "../../runtime/telemetry/tracing.js";
import { parseTraceparent } from "../../runtime/telemetry/traceparent.js";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import { defineLoopAgent, LLM_SECRET, wire } from "../runs/_loop.js";

const exporter = new InMemorySpanExporter();
let runtime: Runtime;
let dispose: () => Promise<void>;
let fake: FakeOpenAi;
let docs: string;
const SECRET_TASK = "summarise the file; the code word is PINEAPPLE-42";

before(async () => {
  await startTracing({ exporter });
  ({ runtime, dispose } = await testRuntime());
  await runtime.setSecret(LLM_SECRET, "sk-test-key-0123456789");
  fake = await startFakeOpenAi();
  docs = join(runtime.dataDir, "docs");
  await mkdir(docs);
  await writeFile(join(docs, "a.txt"), "alpha");
  await defineLoopAgent(runtime, "reader", { provider: "openai", baseUrl: fake.baseUrl, mounts: [{ guest: "/docs", host: docs }] });
});
after(async () => {
  await stopTracing();
  await fake.close();
  await dispose();
});
beforeEach(() => exporter.reset());

const named = (spans: readonly ReadableSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

test("a model-driven run: run → step → chat and execute_tool → host, in the run's trace, with GenAI attributes", async () => {
  fake.reply({ type: "tool_calls", calls: [{ name: wire("files.read_file"), arguments: { path: "/docs/a.txt" } }] }, { type: "text", text: "It says alpha." });
  const { run, settled } = await runtime.submitRun({ agent: "reader", task: SECRET_TASK });
  await settled;
  const spans = exporter.getFinishedSpans();
  const [root] = named(spans, "invoke_agent reader");
  assert.ok(root, spans.map((s) => s.name).join(", "));
  assert.equal(root.spanContext().traceId, run.traceId, "the run's trace_id is the trace id");
  assert.equal(parentOf(root), undefined);
  assert.ok(spans.every((s) => s.spanContext().traceId === run.traceId), "one trace");

  const steps = named(spans, "step ");
  assert.deepEqual(steps.map((s) => s.name).sort(), ["step step_1", "step step_2"]);
  assert.ok(steps.every((s) => parentOf(s) === root.spanContext().spanId));
  const chats = named(spans, "chat ");
  assert.equal(chats.length, 2);
  for (const chat of chats) {
    assert.ok(steps.some((s) => s.spanContext().spanId === parentOf(chat)), "a model call is under its step");
    assert.equal(chat.attributes["gen_ai.operation.name"], "chat");
    assert.equal(chat.attributes["gen_ai.request.model"], "test-model");
    assert.equal(typeof chat.attributes["gen_ai.usage.input_tokens"], "number");
    assert.equal(chat.attributes["server.address"], "127.0.0.1");
  }
  const [tool] = named(spans, "execute_tool files.read_file");
  assert.ok(tool);
  const step1 = steps.find((s) => s.name === "step step_1")!;
  assert.equal(parentOf(tool), step1.spanContext().spanId, "the tool call is under the step that asked for it");
  assert.equal(tool.attributes["gen_ai.tool.name"], "files.read_file");
  assert.equal(tool.attributes["clawhive.tool_call.status"], "ok");
  const hosts = named(spans, "host ");
  assert.ok(hosts.length > 0 && hosts.every((h) => parentOf(h) === tool.spanContext().spanId), "host calls under their tool call");
  assert.ok(hosts.some((h) => h.attributes["clawhive.policy.decision"] === "allow"));

  // Never the prompt, the task, the tool's arguments or output, or the key.
  const everything = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events]));
  for (const secret of ["PINEAPPLE", "alpha", "/docs/a.txt", "sk-test-key"]) assert.ok(!everything.includes(secret), secret);

  // Each model call carried the traceparent of its own span.
  const sentParents = fake.requests.slice(-2).map((r) => parseTraceparent(String(r.headers.traceparent)));
  assert.deepEqual(sentParents.map((p) => p?.spanId).sort(), chats.map((c) => c.spanContext().spanId).sort());
  assert.ok(sentParents.every((p) => p?.traceId === run.traceId));
});

const ns = (t: readonly [number, number]) => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
/** `inner` starts no earlier and ends no later than `outer`, and lasts zero or more. */
function within(inner: ReadableSpan, outer: ReadableSpan): void {
  assert.ok(ns(inner.duration) >= 0n && ns(outer.duration) >= 0n, `${inner.name}, ${outer.name}: durations`);
  assert.ok(ns(inner.startTime) >= ns(outer.startTime), `${inner.name} starts inside ${outer.name}`);
  assert.ok(ns(inner.endTime) <= ns(outer.endTime), `${inner.name} ends inside ${outer.name}`);
}

test("each span lasts from its work's start to its outcome, inside its parent: run ⊇ step ⊇ chat, step ⊇ execute_tool ⊇ host", async () => {
  fake.reply({ type: "tool_calls", calls: [{ name: wire("files.read_file"), arguments: { path: "/docs/a.txt" } }] }, { type: "text", text: "It says alpha." });
  const { settled } = await runtime.submitRun({ agent: "reader", task: "read it" });
  await settled;
  const spans = exporter.getFinishedSpans();
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const parent = (span: ReadableSpan) => byId.get(parentOf(span) ?? "");
  const [root] = named(spans, "invoke_agent reader");
  assert.ok(root);
  const step1 = spans.find((s) => s.name === "step step_1")!;
  const [chat1] = named(spans, "chat ").filter((c) => parent(c) === step1);
  const [tool] = named(spans, "execute_tool ");
  const hosts = named(spans, "host ");
  assert.ok(step1 && chat1 && tool && hosts.length > 0, spans.map((s) => s.name).join(", "));
  assert.equal(parent(step1), root);
  assert.equal(parent(tool), step1);
  within(step1, root);
  within(chat1, step1);
  within(tool, step1);
  for (const host of hosts) {
    assert.equal(parent(host), tool);
    within(host, tool);
  }
  // A host call does work (a policy decision, an audit intent, the read): it is not a point.
  assert.ok(hosts.some((h) => ns(h.duration) > 0n), "some host call has a duration");
  assert.ok(ns(tool.duration) > 0n && ns(chat1.duration) > 0n);
});

test("a denied host call is a span with decision deny and its reason; a failed tool call is an error span", async () => {
  const agent = await defineTestAgent(runtime, "denied", { mounts: [{ guest: "/docs", host: docs, mode: "ro" }] });
  const { settled } = await runtime.submitRun({ agent, toolCalls: [{ name: "files.write_file", input: { path: "/docs/b.txt", content: "x" } }, { name: "files.read_file", input: { path: "/docs/a.txt" } }] });
  await settled;
  const spans = exporter.getFinishedSpans();
  const deny = named(spans, "host ").find((h) => h.attributes["clawhive.policy.decision"] === "deny");
  const allow = named(spans, "host ").find((h) => h.attributes["clawhive.policy.decision"] === "allow");
  assert.ok(allow, "control: the read is allowed");
  if (deny !== undefined) assert.equal(typeof deny.attributes["clawhive.denial.reason"], "string");
  const write = named(spans, "execute_tool files.write_file")[0];
  assert.ok(write);
  assert.notEqual(write.attributes["clawhive.tool_call.status"], "ok");
});

test("a sub-agent's run is in its parent's trace, under the parent's span", async () => {
  const parent = await runtime.startRun({ agent: "reader", task: "delegate" });
  const child = await runtime.startRun({ agent: "reader", task: "child", parentRunId: parent.id, traceId: parent.traceId });
  await child.end();
  await parent.end();
  const spans = exporter.getFinishedSpans().filter((s) => s.name === "invoke_agent reader");
  const parentSpan = spans.find((s) => s.attributes["clawhive.run.id"] === parent.id)!;
  const childSpan = spans.find((s) => s.attributes["clawhive.run.id"] === child.id)!;
  assert.equal(childSpan.spanContext().traceId, parent.traceId);
  assert.equal(parentOf(childSpan), parentSpan.spanContext().spanId);
});
