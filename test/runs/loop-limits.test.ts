import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Runtime, RunEvent } from "../../runtime/index.js";
import { defineLoopAgent, PROVIDERS, sent, until, wire, withLoopRuntime, type Fake } from "./_loop.js";

let runtime: Runtime;
let docs: string;
let n = 0;

withLoopRuntime(Object.fromEntries(["a", "b", "c", "d"].map((name) => [`${name}.txt`, `file ${name}\n`])), (r, d) => {
  runtime = r;
  docs = d;
});

const read = (file: string) => ({ name: wire("files.read_file"), arguments: { path: `/docs/${file}` } });

async function finishStep(runId: string): Promise<Extract<RunEvent, { type: "step" }> | undefined> {
  await runtime.getRun(runId)?.flushEvents();
  const events = (await runtime.events.list(runId)).map((e) => e.data);
  return events.filter((e): e is Extract<RunEvent, { type: "step" }> => e.type === "step" && e.action === "finish").at(-1);
}

for (const { provider, start } of PROVIDERS) {
  describe(`loop limits (${provider})`, () => {
    let fake: Fake;
    before(async () => {
      fake = await start();
    });
    after(() => fake.close());
    const agent = (limits: Record<string, number> = {}) =>
      defineLoopAgent(runtime, `lim-${provider}-${++n}`, { provider, baseUrl: fake.baseUrl, mounts: [{ guest: "/docs", host: docs }], limits });

    test("malformed tool arguments go back to the model, which corrects itself", async () => {
      const first = fake.requests.length;
      fake.reply(
        { type: "tool_calls", calls: [{ name: wire("files.read_file"), arguments: '{"path": "/docs/a.txt"' }] },
        { type: "tool_calls", calls: [read("a.txt")] },
        { type: "text", text: "It says: file a." },
      );
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Read a.txt" });
      await settled;
      assert.match(sent(fake, first + 1), /were not valid/);
      assert.match(sent(fake, first + 2), /file a/);
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "completed");
      assert.equal(record.result, "It says: file a.");
    });

    test("malformed arguments three turns in a row end the run", async () => {
      const bad = { type: "tool_calls" as const, calls: [{ name: wire("files.read_file"), arguments: "not json" }] };
      const first = fake.requests.length;
      fake.reply(bad, bad, bad);
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Read a.txt" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "failed");
      assert.match(record.result ?? "", /invalid 3 turns in a row/);
      assert.equal((await finishStep(run.id))?.reason, "invalid_input");
      assert.equal(fake.requests.length, first + 3);
    });

    test("max_tool_rounds stops a model that keeps calling tools", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "tool_calls", calls: [read("a.txt")] }, { type: "tool_calls", calls: [read("b.txt")] }, { type: "tool_calls", calls: [read("c.txt")] });
      const { run, settled } = await runtime.submitRun({ agent: await agent({ max_tool_rounds: 2 }), task: "Read everything" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "failed");
      assert.match(record.result ?? "", /max_tool_rounds/);
      assert.equal((await finishStep(run.id))?.reason, "max_tool_rounds");
      assert.equal(fake.requests.length, first + 3);
      // The third round's call was never run.
      const calls = run.events.filter((e) => e.type === "tool-call");
      assert.equal(calls.length, 2);
    });

    test("a call repeated unchanged a third time is stopped with an error result", async () => {
      const first = fake.requests.length;
      fake.reply(
        { type: "tool_calls", calls: [read("d.txt")] },
        { type: "tool_calls", calls: [read("d.txt")] },
        { type: "tool_calls", calls: [read("d.txt")] },
        { type: "text", text: "I stop." },
      );
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Read d.txt" });
      await settled;
      assert.doesNotMatch(sent(fake, first + 2), /repeated-call/, "control: the second identical call runs");
      assert.match(sent(fake, first + 3), /repeated-call/);
      // The third is shown as a call refused (not run), and on record as a denial.
      const results = run.events.filter((e) => e.type === "tool-result");
      assert.equal(results.length, 3);
      assert.equal(results[2]!.type === "tool-result" && results[2]!.error?.kind, "repeated-call");
      const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", status: "denied", limit: 10 });
      assert.deepEqual(records.map((r) => r.denial?.reason), ["repeated-call"]);
      assert.equal((await runtime.records.get(run.id))!.result, "I stop.");
    });

    test("a model repeating a call to an unknown tool is stopped after 3 turns, not at max_tool_rounds", async () => {
      const ghost = { type: "tool_calls" as const, calls: [{ name: wire("files.no_such_tool"), arguments: { path: "/docs/a.txt" } }] };
      const first = fake.requests.length;
      fake.reply(ghost, ghost, ghost);
      const { run, settled } = await runtime.submitRun({ agent: await agent({ max_tool_rounds: 10 }), task: "Read a.txt" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "failed");
      assert.equal((await finishStep(run.id))?.reason, "invalid_input");
      assert.equal(fake.requests.length, first + 3);
    });

    test("control: an unknown tool twice, then a real call, goes on and completes", async () => {
      const ghost = { type: "tool_calls" as const, calls: [{ name: wire("files.no_such_tool"), arguments: { path: "/docs/a.txt" } }] };
      const first = fake.requests.length;
      fake.reply(ghost, ghost, { type: "tool_calls", calls: [read("a.txt")] }, { type: "text", text: "It says: file a." });
      const { run, settled } = await runtime.submitRun({ agent: await agent({ max_tool_rounds: 10 }), task: "Read a.txt" });
      await settled;
      assert.match(sent(fake, first + 1), /unknown-tool/);
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "completed");
      assert.equal(fake.requests.length, first + 4);
    });

    test("cancel aborts the model call in flight (the provider sees the connection close)", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "hang", text: "thinking" });
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Think forever" });
      await until(() => fake.requests.length === first + 1, "the model call");
      await runtime.cancelRun(run.id);
      await fake.clientClosed();
      await settled;
      assert.ok(fake.requests[first]!.clientClosed);
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "cancelled");
    });
  });
}

test("the run timeout cancels a run whose model call hangs", async () => {
  const fake = await PROVIDERS[0]!.start();
  try {
    const name = await defineLoopAgent(runtime, `lim-timeout-${++n}`, { provider: "anthropic", baseUrl: fake.baseUrl, limits: { run_timeout_ms: 1000, call_timeout_ms: 500 } });
    fake.reply({ type: "hang" });
    const started = Date.now();
    const { run, settled } = await runtime.submitRun({ agent: name, task: "Hang" });
    await settled;
    assert.ok(Date.now() - started >= 900);
    const record = (await runtime.records.get(run.id))!;
    assert.equal(record.endReason, "cancelled");
    assert.match(record.result ?? "", /run_timeout_ms/);
    assert.equal((await finishStep(run.id))?.reason, "run_timeout");
    // The model call it cut short is on record as timed out, not as cancelled by someone.
    const { records } = await runtime.audit.query({ runId: run.id, kind: "model_call" });
    assert.deepEqual(records.map((r) => [r.status, r.error?.code]), [["error", "timeout"]]);
    await fake.clientClosed();
  } finally {
    await fake.close();
  }
});
