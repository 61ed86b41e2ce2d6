import assert from "node:assert/strict";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Runtime, type RunEvent } from "../../runtime/index.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDataDir, tempDir, testRuntime } from "../helpers/runtime.js";
import { defineLoopAgent, LLM_SECRET, PROVIDERS, sent, until, wire, type Fake } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let docs: string;
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 } }));
  await runtime.setSecret(LLM_SECRET, "test-key");
  work = await tempDir();
  docs = await tempDir();
  await writeFile(join(docs, "notes.txt"), "buy milk\n");
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
  await rm(docs, { recursive: true, force: true });
});

const mounts = () => [
  { guest: "/work", host: work, mode: "rw" as const },
  { guest: "/docs", host: docs, mode: "ro" as const },
];

for (const { provider, start } of PROVIDERS) {
  describe(`the model drives a run (${provider})`, () => {
    let fake: Fake;
    before(async () => {
      fake = await start();
    });
    after(() => fake.close());

    test("reads, is denied a write, waits for an approval, continues and finishes; all under one trace", async () => {
      const agent = await defineLoopAgent(runtime, `loop-${provider}-${++n}`, { provider, baseUrl: fake.baseUrl, mounts: mounts(), lowerToSafe: ["files.edit_file"] });
      const first = fake.requests.length;
      const out = `out-${provider}.txt`;
      fake.reply(
        { type: "tool_calls", text: "Let me read the notes.", calls: [{ name: wire("files.read_file"), arguments: { path: "/docs/notes.txt" } }] },
        { type: "tool_calls", calls: [{ name: wire("files.edit_file"), arguments: { path: "/docs/notes.txt", old_text: "milk", new_text: "tea" } }] },
        { type: "tool_calls", text: "I will write the summary to /work.", calls: [{ name: wire("files.write_file"), arguments: { path: `/work/${out}`, content: "summary: buy milk" } }] },
        { type: "text", text: "Done: the summary is in /work." },
      );
      const { run, settled, conversationId } = await runtime.submitRun({ agent, task: "Summarise /docs/notes.txt into /work." });
      await settled;

      // The tools the model sees are exactly the agent's, with their JSON Schemas.
      const tools = (fake.requests[first]!.body as { tools: Array<Record<string, unknown>> }).tools;
      const toolNames = tools.map((t) => String(t.name ?? (t.function as { name: string }).name)).sort();
      assert.deepEqual(toolNames, run.tools.map((t) => wire(t.qualifiedName)).sort());
      assert.match(sent(fake, first), /"path"/, "the input schema is sent");
      assert.match(sent(fake, first), /read and write/, "the environment zone names the folders");
      // It names the tools that wait for a person by the risk the run applies: edit_file was lowered.
      const waiting = /tools that may wait for a person's approval: ([^\\"]*)/.exec(sent(fake, first))?.[1] ?? "";
      assert.ok(waiting.includes(wire("files.write_file")), waiting);
      assert.ok(!waiting.includes(wire("files.edit_file")), waiting);

      // The file's text reached the model, then the denial with its structured reason.
      assert.match(sent(fake, first + 1), /buy milk/);
      const denied = sent(fake, first + 2);
      assert.match(denied, /\\"denial\\"/, denied);
      assert.match(denied, /fs\.write/);

      // The Guarded write waits for a person: the run holds no worker and the model is not called.
      let record = (await runtime.records.get(run.id))!;
      assert.equal(record.status, "awaiting_approval");
      assert.equal(fake.requests.length, first + 3);
      const approval = (await runtime.approvals.get(record.pending!.approvalId))!;
      assert.equal(approval.context, "I will write the summary to /work.");
      await runtime.approvals.decide(approval.id, { decision: "approve", scope: "once", by: "alice" });
      assert.equal(await runtime.continueRun(run.id), true);

      record = (await runtime.records.get(run.id))!;
      assert.equal(record.status, "ended");
      assert.equal(record.endReason, "completed");
      assert.equal(record.result, "Done: the summary is in /work.");
      assert.equal(record.conversationId, conversationId);
      assert.equal(await readFile(join(work, out), "utf8"), "summary: buy milk");
      assert.equal(fake.requests.length, first + 4);
      assert.match(sent(fake, first + 3), /summary: buy milk|ok|written|bytes/i);

      // Steps: three tool calls, one answer, one finish; each with the provider's usage.
      await run.flushEvents();
      const steps = (await runtime.events.list(run.id)).map((e) => e.data).filter((e): e is Extract<RunEvent, { type: "step" }> => e.type === "step");
      assert.deepEqual(steps.map((s) => [s.stepId, s.action]), [["step_1", "tool_call"], ["step_2", "tool_call"], ["step_3", "tool_call"], ["step_4", "respond"], ["step_4", "finish"]]);
      for (const s of steps.slice(0, 4)) assert.ok(s.usage && s.usage.input_tokens > 0, JSON.stringify(s));
      assert.equal(steps[4]!.reason, "completed");

      // The audit has every ToolCall, under the run's one trace id, with its step.
      const audit = await runtime.audit.query({ traceId: run.traceId, kind: "tool_call", limit: 1000 });
      const bySteps = new Set(audit.records.map((r) => r.stepId));
      for (const stepId of ["step_1", "step_2", "step_3"]) assert.ok(bySteps.has(stepId), `${stepId} in ${[...bySteps].join(",")}`);
      assert.ok(audit.records.every((r) => r.runId === run.id));
    });

    test("a rejected approval goes back to the model as an error result, and the run goes on", async () => {
      const agent = await defineLoopAgent(runtime, `loop-${provider}-${++n}`, { provider, baseUrl: fake.baseUrl, mounts: mounts() });
      const first = fake.requests.length;
      fake.reply(
        { type: "tool_calls", calls: [{ name: wire("files.write_file"), arguments: { path: "/work/no.txt", content: "x" } }] },
        { type: "text", text: "Understood, I did not write it." },
      );
      const { run, settled } = await runtime.submitRun({ agent, task: "Write no.txt" });
      await settled;
      const pending = (await runtime.records.get(run.id))!.pending!;
      await runtime.approvals.decide(pending.approvalId, { decision: "deny", by: "bob", reason: "not today" });
      await runtime.driverTick();
      await until(async () => (await runtime.records.get(run.id))!.status === "ended", "the run to end", 10_000);
      assert.match(sent(fake, first + 1), /approval-denied/);
      assert.match(sent(fake, first + 1), /not today/);
      assert.equal((await runtime.records.get(run.id))!.result, "Understood, I did not write it.");
      await assert.rejects(readFile(join(work, "no.txt")), { code: "ENOENT" });
    });

    test("a conversation continues across runs: the second run's request holds the first run's turn", async () => {
      const agent = await defineLoopAgent(runtime, `loop-${provider}-${++n}`, { provider, baseUrl: fake.baseUrl, mounts: mounts() });
      fake.reply(
        { type: "tool_calls", calls: [{ name: wire("files.read_file"), arguments: { path: "/docs/notes.txt" } }] },
        { type: "text", text: "Your list says: buy milk." },
      );
      const one = await runtime.submitRun({ agent, task: "What is on my list? I am Ada." });
      await one.settled;
      const conversationId = one.conversationId!;
      const second = fake.requests.length;
      fake.reply({ type: "text", text: "You are Ada." });
      const two = await runtime.submitRun({ agent, task: "Who am I?", conversationId });
      await two.settled;
      assert.equal(two.conversationId, conversationId);
      const body = sent(fake, second);
      const order = ["I am Ada", "buy milk", "Your list says: buy milk.", "Who am I?"].map((s) => body.indexOf(s));
      assert.ok(order.every((i) => i >= 0), body);
      assert.deepEqual([...order].sort((a, b) => a - b), order, "history first, in order, then the new task");
      const stored = await runtime.conversations.messages(conversationId);
      assert.deepEqual(stored.map((m) => m.role), ["user", "assistant", "user", "assistant", "user", "assistant"]);
      assert.equal((await runtime.records.get(two.run.id))!.result, "You are Ada.");

      // Control: another agent cannot continue it.
      const other = await defineLoopAgent(runtime, `loop-${provider}-${++n}`, { provider, baseUrl: fake.baseUrl });
      await assert.rejects(runtime.submitRun({ agent: other, task: "hi", conversationId }), { code: "conversation_agent" });
      await assert.rejects(runtime.submitRun({ agent, task: "hi", conversationId: "conv_nope" }), { code: "not_found" });
    });
  });
}

test("a run waiting for an approval continues in a new runtime process after a restart", async () => {
  const fake = await PROVIDERS[0]!.start();
  // Its own data dir: one store handle per database file per process.
  const own = await tempDataDir("clawhive-restart-");
  const agentsDir = join(own, "agents");
  await mkdir(agentsDir);
  const make = async () => {
    const made = await Runtime.create({ dataDir: own, agentsDir, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { callTimeoutMs: 5_000 } });
    await made.setSecret(LLM_SECRET, "test-key");
    return made;
  };
  const first = await make();
  try {
    const agent = await defineLoopAgent(first, "restarted", { provider: "anthropic", baseUrl: fake.baseUrl, mounts: mounts() });
    fake.reply(
      { type: "tool_calls", text: "Writing it.", calls: [{ name: wire("files.write_file"), arguments: { path: "/work/restart.txt", content: "after restart" } }] },
      { type: "text", text: "Written after the restart." },
    );
    const { run, settled } = await first.submitRun({ agent, task: "Write restart.txt" });
    await settled;
    const pending = (await first.records.get(run.id))!.pending!;
    await first.close();

    const second = await make();
    try {
      await defineLoopAgent(second, "restarted", { provider: "anthropic", baseUrl: fake.baseUrl, mounts: mounts() });
      await second.approvals.decide(pending.approvalId, { decision: "approve", by: "alice" });
      await second.driverTick();
      await until(async () => (await second.records.get(run.id))!.status === "ended", "the run to end in the new process", 10_000);
      const record = (await second.records.get(run.id))!;
      assert.equal(record.endReason, "completed");
      assert.equal(record.result, "Written after the restart.");
      assert.equal(await readFile(join(work, "restart.txt"), "utf8"), "after restart");
      // The model's second call carries the first turn, rebuilt from the store.
      assert.match(sent(fake, 1), /Writing it\./);
      assert.match(sent(fake, 1), /Write restart\.txt/);
    } finally {
      await second.close();
    }
  } finally {
    await first.close();
    await fake.close();
    await rm(own, { recursive: true, force: true });
  }
});

test("closing the runtime aborts a model call in flight without ending the run; continueRun goes on later", async () => {
  const fake = await PROVIDERS[1]!.start();
  const own = await tempDataDir("clawhive-close-");
  const agentsDir = join(own, "agents");
  await mkdir(agentsDir);
  const make = async () => {
    const made = await Runtime.create({ dataDir: own, agentsDir, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { callTimeoutMs: 5_000 } });
    await made.setSecret(LLM_SECRET, "test-key");
    await defineLoopAgent(made, "closer", { provider: "openai", baseUrl: fake.baseUrl, mounts: mounts() });
    return made;
  };
  const first = await make();
  let second: Runtime | undefined;
  try {
    fake.reply({ type: "tool_calls", calls: [{ name: wire("files.read_file"), arguments: { path: "/docs/notes.txt" } }] }, { type: "hang" });
    const { run, settled } = await first.submitRun({ agent: "closer", task: "Read the notes" });
    await until(() => fake.requests.length === 2, "the second model call");
    const started = Date.now();
    await first.close();
    await settled;
    assert.ok(Date.now() - started < 20_000, "close does not wait for the model (which never answers)");
    await fake.clientClosed();

    second = await make();
    const record = (await second.records.get(run.id))!;
    assert.equal(record.status, "active", "left as it stood, not ended");
    fake.reply({ type: "text", text: "The notes say: buy milk." });
    assert.equal(await second.continueRun(run.id), true);
    const ended = (await second.records.get(run.id))!;
    assert.equal(ended.endReason, "completed");
    assert.equal(ended.result, "The notes say: buy milk.");
    // The continued call carries the first turn's result, read from the stored state.
    assert.match(sent(fake, 2), /buy milk/);
  } finally {
    await second?.close();
    await first.close();
    await fake.close();
    await rm(own, { recursive: true, force: true });
  }
});

test("a plan run is unchanged: explicit tool calls still run without a model", async () => {
  const agent = await defineTestAgent(runtime, `plan-${++n}`, { mounts: mounts(), plugins: ["files"] });
  const { run, settled } = await runtime.submitRun({ agent, toolCalls: [{ name: "files.read_file", input: { path: "/docs/notes.txt" } }] });
  await settled;
  const record = (await runtime.records.get(run.id))!;
  assert.equal(record.endReason, "completed");
  assert.equal(record.result, null);
  assert.equal(record.conversationId, null);
});
