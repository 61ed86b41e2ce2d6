import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";

test("cancelling a run stops a tool that is running, and other runs go on", async () => {
  const { runtime, dispose } = await testRuntime({ sandbox: { workers: 1, poolSize: 0 } });
  try {
    const agent = await defineTestAgent(runtime, "looper", { plugins: ["probe"] });
    const other = await runtime.startRun({ agent });
    assert.equal((await other.callTool("probe.echo", { before: true })).status, "ok");
    const run = await runtime.startRun({ agent });
    const started = Date.now();
    const looping = run.callTool("probe.loop", {}, { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    await runtime.cancelRun(run.id);
    const outcome = await looping;
    assert.ok(Date.now() - started < 20_000, "the loop was stopped, not waited for");
    assert.equal(outcome.status, "error");
    assert.match(JSON.stringify(outcome), /cancelled/);
    assert.equal((await runtime.records.get(run.id))?.endReason, "cancelled");
    // Control: the other run's instance lived on the killed worker; it is rebuilt and answers.
    assert.equal((await other.callTool("probe.echo", { after: true })).status, "ok");
    await other.end();
  } finally {
    await dispose();
  }
});
