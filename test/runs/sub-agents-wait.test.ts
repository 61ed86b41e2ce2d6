import assert from "node:assert/strict";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Runtime } from "../../runtime/index.js";
import { spawnSubAgent } from "../../runtime/runs/sub-agents.js";
import { apiFixture, call, type ApiFixture } from "../api/routes-fixtures.js";
import { startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-llm/index.js";
import { FILES_PLUGIN, PROBE_PLUGIN, tempDataDir, tempDir } from "../helpers/runtime.js";
import { LLM_SECRET, until } from "./_loop.js";
import { childOf, defineAgents, delegate, ended, waiting, write } from "./_sub-agents.js";

/**
 * A model-driven parent whose sub-agent waits for a person waits too, and goes on with the
 * child's answer once the child ends: decided through the API, on another runtime sharing the
 * store, or after the parent's runtime restarted. A run that ends leaves no child behind.
 */
let f: ApiFixture;
let fake: FakeAnthropic;
let work: string;

before(async () => {
  fake = await startFakeAnthropic();
  f = await apiFixture({ app: { onApprovalDecided: (approval) => void f.runtime.continueRun(approval.runId).catch(() => undefined) } });
  work = join(f.dataDir, "work");
  await mkdir(work);
  await f.runtime.setSecret(LLM_SECRET, "test-key");
  await defineAgents(f.runtime, fake.baseUrl, work);
});
after(async () => {
  await f.close();
  await fake.close();
});

/** The request the fake got `n` requests after `from`, as text. */
function request(from: number, n: number): string {
  const found = fake.requests[from + n];
  assert.ok(found, `the fake got ${fake.requests.length - from} requests since the test began, not ${n + 1}`);
  return JSON.stringify(found.body);
}

/** The tool_result blocks of a request body (Anthropic shape), as text. */
function toolResults(body: string): string[] {
  const parsed = JSON.parse(body) as { messages: Array<{ content: unknown }> };
  return parsed.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type?: string }) => b.type === "tool_result")
    .map((b: unknown) => JSON.stringify(b));
}

async function submit(agent: string, task: string): Promise<string> {
  const answer = await call(f, "POST", "/v1/runs", { token: f.token.client, json: { agent, task } });
  assert.equal(answer.status, 202, answer.text);
  return answer.body.run.id as string;
}

async function runView(id: string) {
  const answer = await call(f, "GET", `/v1/runs/${id}`, { token: f.token.client });
  assert.equal(answer.status, 200, answer.text);
  return answer.body.run;
}

test("a child's approval makes the parent wait; approved through the API, the child finishes and the parent's model gets its answer", async () => {
  const from = fake.requests.length;
  fake.reply(delegate("helper", "write the report"), write("report.txt", "done"), { type: "text", text: "helper: wrote report.txt" }, { type: "text", text: "lead: the helper wrote the report" });
  const leadId = await submit("lead", "get the report written");
  const helperId = await childOf(f.runtime, leadId);
  const helper = await waiting(f.runtime, helperId);
  const lead = await waiting(f.runtime, leadId);
  const approvalId = helper.pending!.approvalId;
  assert.deepEqual(lead.pending && { approvalId: lead.pending.approvalId, childRunId: lead.pending.childRunId, tool: lead.pending.tool }, { approvalId, childRunId: helperId, tool: "subagent_helper" });

  // What a client sees: the parent waits for the child's approval, through the child.
  const shown = await runView(leadId);
  assert.equal(shown.status, "awaiting_approval");
  assert.deepEqual(shown.pending_approval, { id: approvalId, tool: "subagent_helper", step_id: "step_1", sub_agent_run_id: helperId });
  const listed = await call(f, "GET", "/v1/approvals", { token: f.token.approver });
  const approval = listed.body.approvals.find((a: { id: string }) => a.id === approvalId);
  assert.ok(approval, "the child's approval is listed once for the approvers");
  assert.equal(listed.body.approvals.filter((a: { run_id: string }) => a.run_id === leadId).length, 0, "the parent asks nothing of its own");
  assert.deepEqual(approval.chain, [{ run_id: leadId, agent: "lead" }, { run_id: helperId, agent: "helper" }]);
  const events = await f.runtime.events.list(leadId, { after: 0, limit: 100 });
  assert.ok(events.some((e) => e.type === "approval-required" && (e.data as { subAgentRunId?: string }).subAgentRunId === helperId), "the parent's stream shows the wait");

  // Longer than the lead's run timeout: waiting does not count against it.
  await new Promise((resolve) => setTimeout(resolve, 8300));
  assert.equal((await f.runtime.records.get(leadId))?.status, "awaiting_approval");
  const decided = await call(f, "POST", `/v1/approvals/${approvalId}`, { token: f.token.approver, json: { decision: "approve" } });
  assert.equal(decided.status, 200, decided.text);

  assert.equal((await ended(f.runtime, helperId)).endReason, "completed");
  const done = await ended(f.runtime, leadId);
  assert.equal(done.endReason, "completed", done.result ?? "");
  assert.equal(done.result, "lead: the helper wrote the report");
  assert.equal(await readFile(join(work, "report.txt"), "utf8"), "done");
  // Requests: lead, helper, helper (after the approval), lead (with the child's answer).
  assert.equal(fake.requests.length - from, 4);
  const results = toolResults(request(from, 3));
  assert.equal(results.length, 1);
  assert.match(results[0]!, /helper: wrote report\.txt/);
  assert.doesNotMatch(results[0]!, /"is_error":true/);
  assert.deepEqual((await runView(leadId)).pending_approval, null);
});

test("a denial: the child is told, ends, and the parent gets the child's answer and completes", async () => {
  const from = fake.requests.length;
  fake.reply(delegate("helper", "write the memo"), write("memo.txt", "m"), { type: "text", text: "helper: a person denied the write" }, { type: "text", text: "lead: no memo" });
  const leadId = await submit("lead", "get the memo written");
  const helperId = await childOf(f.runtime, leadId);
  const approvalId = (await waiting(f.runtime, helperId)).pending!.approvalId;
  await waiting(f.runtime, leadId);
  const decided = await call(f, "POST", `/v1/approvals/${approvalId}`, { token: f.token.approver, json: { decision: "deny", reason: "not now" } });
  assert.equal(decided.status, 200, decided.text);
  const done = await ended(f.runtime, leadId);
  assert.equal(done.result, "lead: no memo");
  assert.match(toolResults(request(from, 2))[0]!, /approval-denied.*not now/, "the child's model is told of the denial");
  assert.match(toolResults(request(from, 3))[0]!, /helper: a person denied the write/, "the parent's model gets the child's answer");
  await assert.rejects(readFile(join(work, "memo.txt")), { code: "ENOENT" });
});

test("a child that asks again after its first approval: the parent waits on the new one, and its stream shows each once", async () => {
  const from = fake.requests.length;
  fake.reply(delegate("helper", "write two files"), write("one.txt", "1"));
  const leadId = await submit("lead", "get two files written");
  const helperId = await childOf(f.runtime, leadId);
  const first = (await waiting(f.runtime, helperId)).pending!.approvalId;
  await waiting(f.runtime, leadId);
  fake.reply(write("two.txt", "2"));
  await call(f, "POST", `/v1/approvals/${first}`, { token: f.token.approver, json: { decision: "approve" } });
  let second = first;
  await until(async () => (second = (await f.runtime.records.get(helperId))?.pending?.approvalId ?? first) !== first, "the child's second approval");
  await until(async () => (await f.runtime.records.get(leadId))?.pending?.approvalId === second, "the parent to show the second approval");
  assert.equal((await runView(leadId)).pending_approval.id, second);
  const shown = async () =>
    (await f.runtime.events.list(leadId, { after: 0, limit: 100 }))
      .filter((e) => e.type === "approval-required")
      .map((e) => (e.data as { approval: { id: string }; subAgentRunId?: string }))
      .map((d) => [d.approval.id, d.subAgentRunId]);
  await until(async () => (await shown()).length === 2, "both approvals in the parent's stream");
  assert.deepEqual(await shown(), [[first, helperId], [second, helperId]]);

  fake.reply({ type: "text", text: "helper: both written" }, { type: "text", text: "lead: two files" });
  await call(f, "POST", `/v1/approvals/${second}`, { token: f.token.approver, json: { decision: "approve" } });
  assert.equal((await ended(f.runtime, leadId)).result, "lead: two files");
  assert.equal(fake.requests.length - from, 5);
  assert.match(toolResults(request(from, 4))[0]!, /helper: both written/);
});

test("nested: a grandchild's approval makes child and parent wait; once it ends, the child goes on and ends, then the parent", async () => {
  const from = fake.requests.length;
  fake.reply(
    delegate("mid", "have the helper write deep.txt"),
    delegate("helper", "write deep.txt"),
    write("deep.txt", "deep"),
    { type: "text", text: "helper: deep.txt written" },
    { type: "text", text: "mid: the helper says deep.txt is written" },
    { type: "text", text: "lead: all done" },
  );
  const leadId = await submit("lead", "get deep.txt written");
  const midId = await childOf(f.runtime, leadId);
  const helperId = await childOf(f.runtime, midId);
  const approvalId = (await waiting(f.runtime, helperId)).pending!.approvalId;
  const mid = await waiting(f.runtime, midId);
  const lead = await waiting(f.runtime, leadId);
  assert.equal(mid.pending?.childRunId, helperId);
  assert.equal(lead.pending?.childRunId, midId);
  assert.equal(mid.pending?.approvalId, approvalId);
  assert.equal(lead.pending?.approvalId, approvalId, "the root shows the approval the chain waits for");
  const approval = (await call(f, "GET", `/v1/approvals/${approvalId}`, { token: f.token.approver })).body.approval;
  assert.deepEqual(approval.chain.map((c: { agent: string }) => c.agent), ["lead", "mid", "helper"]);

  await call(f, "POST", `/v1/approvals/${approvalId}`, { token: f.token.approver, json: { decision: "approve" } });
  const done = await ended(f.runtime, leadId);
  assert.equal(done.result, "lead: all done");
  const [helperDone, midDone] = [(await f.runtime.records.get(helperId))!, (await f.runtime.records.get(midId))!];
  assert.ok(helperDone.endedAt! <= midDone.endedAt! && midDone.endedAt! <= done.endedAt!, "the helper ends, then mid, then the lead");
  assert.match(toolResults(request(from, 4))[0]!, /helper: deep\.txt written/, "mid's model gets the helper's answer");
  assert.match(toolResults(request(from, 5))[0]!, /mid: the helper says deep\.txt is written/, "the lead's model gets mid's answer");
  assert.equal(await readFile(join(work, "deep.txt"), "utf8"), "deep");
});

test("cancelling the parent (API) while its child waits cancels both", async () => {
  fake.reply(delegate("mid", "have a file written"), delegate("helper", "write c.txt"), write("c.txt", "c"));
  const leadId = await submit("lead", "delegate a write");
  const midId = await childOf(f.runtime, leadId);
  const helperId = await childOf(f.runtime, midId);
  const approvalId = (await waiting(f.runtime, helperId)).pending!.approvalId;
  await waiting(f.runtime, leadId);
  const cancelled = await call(f, "POST", `/v1/runs/${leadId}/cancel`, { token: f.token.client });
  assert.equal(cancelled.status, 202, cancelled.text);
  for (const id of [leadId, midId, helperId]) assert.equal((await ended(f.runtime, id)).endReason, "cancelled", id);
  // A decision after the fact changes nothing.
  await call(f, "POST", `/v1/approvals/${approvalId}`, { token: f.token.approver, json: { decision: "approve" } });
  await f.runtime.driverTick();
  await assert.rejects(readFile(join(work, "c.txt")), { code: "ENOENT" });
});

test("a run that ends for any reason cancels the sub-agent runs still waiting below it", async () => {
  for (const reason of ["failed", "completed", "cancelled"] as const) {
    const parent = await f.runtime.startRun({ agent: "mid", task: `ends ${reason}` });
    const spawned = await spawnSubAgent(f.runtime, parent, { agent: "helper", toolCalls: [{ name: "files.write_file", input: { path: `/work/${reason}.txt`, content: "x" } }] });
    assert.equal(spawned.status, "awaiting_approval", JSON.stringify(spawned));
    const childId = (spawned as { runId: string }).runId;
    // Control: a run outside the chain, waiting too, is left alone.
    const other = await f.runtime.submitRun({ agent: "helper", toolCalls: [{ name: "files.write_file", input: { path: `/work/other-${reason}.txt`, content: "x" } }] });
    await other.settled;
    assert.equal((await f.runtime.records.get(other.run.id))?.status, "awaiting_approval");

    await (reason === "cancelled" ? parent.cancel() : parent.end(reason));
    const child = await ended(f.runtime, childId);
    assert.equal(child.endReason, "cancelled", reason);
    assert.equal(f.runtime.getRun(childId), undefined, "no live child");
    assert.equal((await f.runtime.records.get(other.run.id))?.status, "awaiting_approval", "a run outside the chain goes on");
    await f.runtime.cancelRun(other.run.id);
  }
});

/** A second runtime on the fixture's store (its data dir, so its store file and secret key). */
async function secondRuntime(): Promise<Runtime> {
  const runtime = await Runtime.create({ dataDir: f.dataDir, agentsDir: await tempDir("clawhive-agents-"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], runLeaseMs: 3000 });
  await defineAgents(runtime, fake.baseUrl, work);
  return runtime;
}

test("the child's approval decided on another runtime sharing the store: the first keeps driving, and the parent continues", async () => {
  const from = fake.requests.length;
  fake.reply(delegate("helper", "write b.txt"), write("b.txt", "b"), { type: "text", text: "helper: b.txt written" }, { type: "text", text: "lead: b is there" });
  const leadId = await submit("lead", "get b.txt written");
  const helperId = await childOf(f.runtime, leadId);
  const approvalId = (await waiting(f.runtime, helperId)).pending!.approvalId;
  await waiting(f.runtime, leadId);
  const other = await secondRuntime();
  try {
    await other.approvals.decide(approvalId, { decision: "approve", by: "bob" });
    // As `clawhive serve` does after a decision: this runtime holds neither run, so it may not drive them.
    assert.equal(await other.continueRun(helperId), false);
    // The first runtime's driver tick picks the decision up; the child's end continues the parent.
    const done = await ended(f.runtime, leadId);
    assert.equal(done.result, "lead: b is there");
    assert.match(toolResults(request(from, 3))[0]!, /helper: b\.txt written/);
    assert.equal(await readFile(join(work, "b.txt"), "utf8"), "b");
  } finally {
    await other.close();
  }
});

test("the parent's runtime restarted while it waited: the runtime that takes over continues child and parent", async () => {
  // Its own store (data dir), so closing this runtime leaves the fixture's alone.
  const dataDir = await tempDataDir("clawhive-restart-");
  const dir = join(dataDir, "work");
  await mkdir(dir);
  const open = async () => {
    const runtime = await Runtime.create({ dataDir, agentsDir: await tempDir("clawhive-agents-"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], runLeaseMs: 1500 });
    await defineAgents(runtime, fake.baseUrl, dir);
    return runtime;
  };
  const from = fake.requests.length;
  fake.reply(delegate("helper", "write r.txt"), write("r.txt", "r"), { type: "text", text: "helper: r.txt written" }, { type: "text", text: "lead: r is there" });
  const first = await open();
  let leadId: string;
  let helperId: string;
  let approvalId: string;
  try {
    await first.setSecret(LLM_SECRET, "test-key");
    const { run, settled } = await first.submitRun({ agent: "lead", task: "get r.txt written" });
    await settled;
    leadId = run.id;
    helperId = await childOf(first, leadId);
    approvalId = (await waiting(first, helperId)).pending!.approvalId;
    assert.equal((await waiting(first, leadId)).pending?.childRunId, helperId);
  } finally {
    await first.close();
  }
  const second = await open();
  try {
    await second.approvals.decide(approvalId, { decision: "approve", by: "alice" });
    const done = await ended(second, leadId);
    assert.equal(done.result, "lead: r is there");
    assert.match(toolResults(request(from, 3))[0]!, /helper: r\.txt written/);
    assert.equal(await readFile(join(dir, "r.txt"), "utf8"), "r");
  } finally {
    await second.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
