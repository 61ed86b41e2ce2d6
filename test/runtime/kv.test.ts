import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
before(async () => {
  ({ runtime, dispose } = await testRuntime());
  await defineTestAgent(runtime, "keeper-a", { plugins: ["probe"], extraGrants: { kv: { namespace: "notes", quota_bytes: 64 } } });
  await defineTestAgent(runtime, "keeper-b", { plugins: ["probe"], extraGrants: { kv: { namespace: "notes", quota_bytes: 64 } } });
  await defineTestAgent(runtime, "no-kv", { plugins: ["probe"] });
});
after(() => dispose());

const output = (o: unknown) => (o as { output: unknown }).output;

test("kv keeps values per agent across runs; another agent with the same namespace name sees none", async () => {
  const first = await runtime.startRun({ agent: "keeper-a" });
  assert.equal((await first.callTool("probe.kvset", { key: "todo", value: "buy milk" })).status, "ok");
  await first.end();
  const second = await runtime.startRun({ agent: "keeper-a" });
  assert.deepEqual(output(await second.callTool("probe.kvget", { key: "todo" })), { value: "buy milk" });
  const other = await runtime.startRun({ agent: "keeper-b" });
  assert.deepEqual(output(await other.callTool("probe.kvget", { key: "todo" })), { value: null });
  await Promise.all([second.end(), other.end()]);
});

test("the quota is enforced; control: a value under it is stored", async () => {
  const run = await runtime.startRun({ agent: "keeper-b" });
  assert.equal((await run.callTool("probe.kvset", { key: "k", value: "x".repeat(40) })).status, "ok");
  const over = await run.callTool("probe.kvset", { key: "k2", value: "y".repeat(40) });
  assert.equal(over.status, "error");
  assert.match(JSON.stringify(over), /quota-exceeded/);
  await run.end();
});

test("without a kv grant the call is denied and audited", async () => {
  const run = await runtime.startRun({ agent: "no-kv" });
  const outcome = await run.callTool("probe.kvset", { key: "k", value: "v" });
  assert.match(JSON.stringify(outcome), /not-granted/);
  const { records } = await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 10 });
  assert.deepEqual(records.map((r) => r.denial?.reason), ["not-granted"]);
  await run.end();
});
