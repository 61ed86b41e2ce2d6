/**
 * A ToolCall stopped while one of its host calls is still acting (its deadline passed, or the run
 * was cancelled) returns, and the run ends, only once that host call's intent and outcome are in
 * the audit log, before the ToolCall's own outcome. Control: a host call that finished in time.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";

const SLOW_MS = 1_500;
let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Server;
let port = 0;
let requests = 0;

before(async () => {
  server = createServer((req, res) => {
    requests++;
    const slow = req.url?.startsWith("/slow") === true;
    const timer = setTimeout(() => res.end("page"), slow ? SLOW_MS : 0);
    res.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [join(PROJECT_ROOT, "plugins", "web")] }));
  await defineTestAgent(runtime, "reader", {
    plugins: ["web"],
    extraGrants: { "http.fetch": { schemes: ["http"], hosts: ["127.0.0.1"], ports: [port], allow_addresses: ["127.0.0.1"] } },
    lowerToSafe: ["web.fetch_page"],
    limits: { call_timeout_ms: 400 },
  });
});
after(async () => {
  await dispose();
  await new Promise((resolve) => server.close(resolve));
});

const url = (path: string) => `http://127.0.0.1:${port}${path}`;

/** The run's records as they are now: the fetch's intent and outcome, and the ToolCall's outcome. */
async function records(runId: string) {
  const { records: all } = await runtime.audit.query({ runId, limit: 100 });
  const fetchIntent = all.find((r) => r.kind === "host_call" && r.intentSeq === null && r.status === "intent");
  const fetchOutcome = fetchIntent && all.find((r) => r.intentSeq === fetchIntent.seq);
  const toolIntent = all.find((r) => r.kind === "tool_call" && r.intentSeq === null);
  const toolOutcome = toolIntent && all.find((r) => r.intentSeq === toolIntent.seq);
  return { all, fetchIntent, fetchOutcome, toolOutcome };
}

function assertRecorded(found: Awaited<ReturnType<typeof records>>): void {
  const dump = JSON.stringify(found.all.map((r) => [r.seq, r.kind, r.status, r.intentSeq]));
  assert.ok(found.fetchIntent, `the fetch's intent: ${dump}`);
  assert.ok(found.fetchOutcome, `the fetch's outcome: ${dump}`);
  assert.ok(found.toolOutcome, `the ToolCall's outcome: ${dump}`);
  assert.ok(found.fetchOutcome.seq < found.toolOutcome.seq, `the fetch's outcome comes before the ToolCall's: ${dump}`);
}

test("a ToolCall past its deadline while its fetch still runs returns with the fetch's intent and outcome recorded before its own", async () => {
  const run = await runtime.startRun({ agent: "reader" });
  const outcome = await run.callTool("web.fetch_page", { url: url("/slow"), format: "raw" });
  assert.equal(outcome.status, "error", JSON.stringify(outcome));
  assertRecorded(await records(run.id));
  await run.end();
});

test("a run cancelled while its fetch still runs ends with the fetch's intent and outcome recorded", async () => {
  const run = await runtime.startRun({ agent: "reader" });
  const seen = requests;
  const pending = run.callTool("web.fetch_page", { url: url("/slow?cancel"), format: "raw" });
  while (requests === seen) await new Promise((resolve) => setTimeout(resolve, 10));
  await run.cancel();
  const found = await records(run.id);
  assert.ok(found.fetchIntent && found.fetchOutcome, JSON.stringify(found.all.map((r) => [r.seq, r.kind, r.status, r.intentSeq])));
  const outcome = await pending;
  assert.equal(outcome.status, "error", JSON.stringify(outcome));
  assertRecorded(await records(run.id));
});

test("control: a fetch that ends in time has its intent and outcome recorded before the ToolCall's", async () => {
  const run = await runtime.startRun({ agent: "reader" });
  const outcome = await run.callTool("web.fetch_page", { url: url("/fast"), format: "raw" });
  assert.equal(outcome.status, "ok", JSON.stringify(outcome));
  assertRecorded(await records(run.id));
  await run.end();
});
