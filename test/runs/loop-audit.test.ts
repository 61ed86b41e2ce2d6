import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AuditRecord } from "../../runtime/audit/index.js";
import type { Runtime, RunEvent } from "../../runtime/index.js";
import { roughTokens } from "../helpers/fake-llm/replies.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { defineLoopAgent, LLM_SECRET, PROVIDERS, until, wire, type Fake } from "./_loop.js";

// Every model call of a model-driven run is one model_call audit record: its shape and usage,
// never the prompt. Distinctive strings in the task and in a tool result must reach the model
// (the control) and never the audit table.
const TASK_MARK = "MARMALADE-7731-task";
const RESULT_MARK = "QUINCE-4471-result";

let runtime: Runtime;
let dispose: () => Promise<void>;
let docs: string;
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 }, llm: { maxAttempts: 3 } }));
  await runtime.setSecret(LLM_SECRET, "test-key");
  docs = await tempDir();
  await writeFile(join(docs, "a.txt"), `note: ${RESULT_MARK}\n`);
  await writeFile(join(docs, "b.txt"), "file b\n");
});
after(async () => {
  await dispose();
  await rm(docs, { recursive: true, force: true });
});

const read = (file: string) => ({ name: wire("files.read_file"), arguments: { path: `/docs/${file}` } });
const now = { "retry-after-ms": "0" };

async function modelCalls(runId: string): Promise<readonly AuditRecord[]> {
  return (await runtime.audit.query({ runId, kind: "model_call", order: "asc" })).records;
}

async function allAuditText(): Promise<string> {
  const rows = (await runtime.store.execute("SELECT * FROM audit_records")).rows;
  return rows.map((row) => Object.values(row).map(String).join("\u0000")).join("\n");
}

async function steps(runId: string): Promise<Extract<RunEvent, { type: "step" }>[]> {
  await runtime.getRun(runId)?.flushEvents();
  return (await runtime.events.list(runId)).map((e) => e.data).filter((e): e is Extract<RunEvent, { type: "step" }> => e.type === "step" && e.action !== "finish");
}

for (const { provider, start } of PROVIDERS) {
  describe(`model calls are audited (${provider})`, () => {
    let fake: Fake;
    before(async () => {
      fake = await start();
    });
    after(() => fake.close());
    const agent = () => defineLoopAgent(runtime, `aud-${provider}-${++n}`, { provider, baseUrl: fake.baseUrl, mounts: [{ guest: "/docs", host: docs }] });

    test("one model_call record per Step, under the run's trace, with the usage the provider sent, and no prompt text", async () => {
      const name = await agent();
      const first = fake.requests.length;
      fake.reply({ type: "tool_calls", calls: [read("a.txt")] }, { type: "tool_calls", calls: [read("b.txt")] }, { type: "text", text: "Both read." });
      const { run, settled } = await runtime.submitRun({ agent: name, task: `Read both files. ${TASK_MARK}` });
      await settled;
      assert.equal((await runtime.records.get(run.id))?.endReason, "completed");

      const records = await modelCalls(run.id);
      assert.equal(records.length, 3);
      const stepEvents = await steps(run.id);
      assert.equal(stepEvents.length, 3);
      records.forEach((record, i) => {
        assert.equal(record.kind, "model_call");
        assert.equal(record.status, "ok");
        assert.equal(record.decision, "allow");
        assert.equal(record.traceId, run.traceId);
        assert.equal(record.taskId, run.taskId);
        assert.equal(record.runId, run.id);
        assert.equal(record.parentRunId, null);
        assert.equal(record.agent, name);
        assert.equal(record.stepId, `step_${i + 1}`);
        assert.deepEqual(record.hostCall, { proxy: "llm", function: provider });
        assert.deepEqual([record.requestedCapabilities, record.grantedCapabilities], [[], []]);
        assert.ok(record.endAt !== null && record.endAt >= record.startAt);
        const call = record.modelCall!;
        assert.equal(call.model, "test-model");
        assert.equal(call.baseUrl, new URL(fake.baseUrl).host);
        assert.equal(call.messages, 1 + 2 * i, "the task, then each turn's call and results");
        assert.deepEqual([...call.tools].sort(), run.tools.map((t) => t.qualifiedName).sort());
        assert.equal(call.maxTokens, 1024);
        assert.equal(call.attempts, 1);
        assert.equal(call.stopReason, i < 2 ? "tool_use" : "end_turn");
        // The fakes count prompt tokens from the messages they were sent.
        const body = fake.requests[first + i]!.body as { messages: unknown };
        assert.equal(call.inputTokens, roughTokens(body.messages));
        assert.equal(call.inputTokens, stepEvents[i]!.usage?.input_tokens);
        assert.equal(call.outputTokens, stepEvents[i]!.usage?.output_tokens);
      });

      // Each Step's model call is in the chain before the ToolCall it asked for.
      const all = (await runtime.audit.query({ runId: run.id, order: "asc", limit: 1000 })).records;
      for (const step of ["step_1", "step_2"]) {
        const model = all.find((r) => r.kind === "model_call" && r.stepId === step)!;
        const tool = all.find((r) => r.kind === "tool_call" && r.stepId === step && r.status === "intent")!;
        assert.ok(model.seq < tool.seq, `${step}: model call #${model.seq}, tool intent #${tool.seq}`);
      }
      assert.equal((await runtime.audit.verify()).ok, true);

      // Control: both strings did leave in the prompts; neither is in any audit row.
      const prompts = fake.requests.slice(first).map((r) => JSON.stringify(r.body)).join("\n");
      assert.ok(prompts.includes(TASK_MARK) && prompts.includes(RESULT_MARK));
      const stored = await allAuditText();
      assert.ok(stored.includes(run.id), "the control: the run's records are in the rows searched");
      assert.ok(!stored.includes(TASK_MARK), "the task text reached the audit table");
      assert.ok(!stored.includes(RESULT_MARK), "a tool result reached the audit table");
      assert.ok(!stored.includes("test-key"), "the API key reached the audit table");
    });

    test("a 429 then success is one ok record with its attempts", async () => {
      fake.reply({ type: "error", status: 429, message: "slow down", headers: now }, { type: "text", text: "fine" });
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Say fine" });
      await settled;
      const [record, ...more] = await modelCalls(run.id);
      assert.equal(more.length, 0);
      assert.equal(record?.status, "ok");
      assert.equal(record?.modelCall?.attempts, 2);
      assert.equal(record?.error, null);
    });

    test("a provider failing until the retries give up is recorded as an error, and the run fails", async () => {
      fake.reply(...[1, 2, 3].map(() => ({ type: "error" as const, status: 500, message: "overloaded", headers: now })));
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: `Fail ${TASK_MARK}` });
      await settled;
      assert.equal((await runtime.records.get(run.id))?.endReason, "failed");
      const [record, ...more] = await modelCalls(run.id);
      assert.equal(more.length, 0);
      assert.equal(record?.status, "error");
      assert.equal(record?.error?.code, "unavailable");
      assert.match(record?.error?.message ?? "", /3 attempts/);
      assert.equal(record?.modelCall?.attempts, 3);
      assert.equal(record?.modelCall?.inputTokens, null);
      assert.deepEqual((await runtime.audit.query({ runId: run.id, kind: "model_call", status: "error" })).records.map((r) => r.seq), [record?.seq]);
    });

    test("a cancelled run's model call in flight is recorded as error cancelled", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "hang", text: "thinking" });
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Think forever" });
      await until(() => fake.requests.length === first + 1, "the model call");
      await runtime.cancelRun(run.id);
      await settled;
      assert.equal((await runtime.records.get(run.id))?.endReason, "cancelled");
      const [record, ...more] = await modelCalls(run.id);
      assert.equal(more.length, 0);
      assert.equal(record?.status, "error");
      assert.equal(record?.error?.code, "cancelled");
      assert.equal(record?.stepId, "step_1");
    });
  });
}

test("fail closed: a model call that could not be recorded stops the next call, and fails a run that would complete", async () => {
  const fake = await PROVIDERS[1]!.start();
  const audit = runtime.audit as { appendModelCall: Runtime["audit"]["appendModelCall"] };
  const real = audit.appendModelCall;
  audit.appendModelCall = () => Promise.reject(new Error("the store is gone"));
  try {
    const name = await defineLoopAgent(runtime, `aud-closed-${++n}`, { provider: "openai", baseUrl: fake.baseUrl, mounts: [{ guest: "/docs", host: docs }] });
    // A Step whose record failed: its ToolCall runs (its own intent is durable), but no further
    // prompt leaves.
    fake.reply({ type: "tool_calls", calls: [read("b.txt")] }, { type: "text", text: "never asked" });
    const first = fake.requests.length;
    const asked = await runtime.submitRun({ agent: name, task: "Read b" });
    await asked.settled;
    assert.equal(fake.requests.length, first + 1, "the second prompt was not sent");
    const failed = (await runtime.records.get(asked.run.id))!;
    assert.equal(failed.endReason, "failed");
    assert.match(failed.result ?? "", /the store is gone/);
    // An answer whose record failed is not reported as the run's result.
    fake.reply({ type: "text", text: "the answer" });
    const answered = await runtime.submitRun({ agent: name, task: "Answer" });
    await answered.settled;
    const record = (await runtime.records.get(answered.run.id))!;
    assert.equal(record.endReason, "failed");
    assert.match(record.result ?? "", /a model call could not be recorded: the store is gone/);
    // Control: with the log back, the same run completes.
    audit.appendModelCall = real;
    fake.reply({ type: "text", text: "the answer" });
    const control = await runtime.submitRun({ agent: name, task: "Answer" });
    await control.settled;
    assert.equal((await runtime.records.get(control.run.id))?.result, "the answer");
  } finally {
    audit.appendModelCall = real;
    await fake.close();
  }
});
