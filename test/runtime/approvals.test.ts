import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime, ToolCallOutcome } from "../../runtime/index.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let now = Date.UTC(2026, 10, 22, 12);
const clock = { now: () => now };
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ clock, sandbox: { callTimeoutMs: 5_000 } }));
  work = await tempDir();
  await writeFile(join(work, "notes.txt"), "one\n");
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

const agent = (options: Parameters<typeof defineTestAgent>[2] = {}) => defineTestAgent(runtime, `ap${++n}`, { mounts: [{ guest: "/work", host: work, mode: "rw" }], ...options });
const approvalOf = (o: ToolCallOutcome) => {
  assert.equal(o.status, "approval_required", JSON.stringify(o));
  return (o as Extract<ToolCallOutcome, { status: "approval_required" }>).approval;
};
const write = (path: string, content: string) => ({ path: `/work/${path}`, content });

test("a Guarded ToolCall waits for a person; once approved, the replay runs and the approval is spent", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const first = await run.callTool("files.write_file", write("a.txt", "A"), { context: "the user asked for a.txt" });
  const approval = approvalOf(first);
  assert.equal(approval.kind, "tool_call");
  assert.equal(run.status, "awaiting_approval");
  await assert.rejects(readFile(join(work, "a.txt")), { code: "ENOENT" });
  // While waiting, the run takes no other call and holds no instance.
  await assert.rejects(run.callTool("files.read_file", { path: "/work/notes.txt" }), { code: "run_awaiting_approval" });
  assert.equal(runtime.sandbox.instancesOf(run.id), 0);
  const stored = await runtime.approvals.get(approval.id);
  assert.equal(stored?.context, "the user asked for a.txt");
  await runtime.approvals.decide(approval.id, { decision: "approve", scope: "once", by: "alice" });
  const replay = await run.resume();
  assert.equal(replay?.status, "ok", JSON.stringify(replay));
  assert.equal(await readFile(join(work, "a.txt"), "utf8"), "A");
  assert.equal(await run.resume(), undefined, "nothing left to replay");
  // A once-approval covers that call only: the same call again asks again.
  approvalOf(await run.callTool("files.write_file", write("a.txt", "A")));
  await run.end();
});

test("a Guarded ToolCall whose capabilities no layer could allow is refused at once: nobody is asked", async () => {
  const readOnly = { "fs.read": { mounts: [{ guest: "/work", host: work }] } };
  const run = await runtime.startRun({ agent: await agent(), grants: readOnly });
  const refused = await run.callTool("files.write_file", write("never.txt", "X"));
  assert.equal(refused.status, "error", JSON.stringify(refused));
  const error = (refused as Extract<ToolCallOutcome, { status: "error" }>).error;
  assert.equal(error.kind, "denied");
  // The same words a host call would have got: the task narrowed fs.write away.
  assert.equal(error.denial?.reason, "narrowed-by-task");
  assert.equal(run.status, "active");
  assert.equal((await runtime.approvals.list({ runId: run.id })).length, 0, "no approval was requested");
  await assert.rejects(readFile(join(work, "never.txt")), { code: "ENOENT" });
  const { records } = await runtime.audit.query({ runId: run.id, limit: 10 });
  assert.deepEqual(records.map((r) => [r.kind, r.status, r.denial?.reason]), [["tool_call", "denied", "narrowed-by-task"]]);
  // A step elevation that restores fs.write makes it reachable again: then a person is asked.
  const elevation = { "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] } };
  approvalOf(await run.callTool("files.write_file", write("never.txt", "X"), { elevation }));
  await run.end();

  // Control: with fs.write granted, the same call waits for a person.
  const granted = await runtime.startRun({ agent: await agent() });
  approvalOf(await granted.callTool("files.write_file", write("asked.txt", "X")));
  await granted.end();
});

test("a replay with changed arguments is not covered by the approval", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const approval = approvalOf(await run.callTool("files.write_file", write("b.txt", "B"), { stepId: "s1" }));
  await runtime.approvals.decide(approval.id, { decision: "approve", by: "alice" });
  // Control: a different run cannot use it either; then the same step with other arguments.
  const other = await runtime.startRun({ agent: run.agent.name });
  approvalOf(await other.callTool("files.write_file", write("b.txt", "B"), { stepId: "s1" }));
  const pending = run.pending!;
  assert.equal(pending.stepId, "s1");
  const replay = await run.resume();
  assert.equal(replay?.status, "ok");
  approvalOf(await run.callTool("files.write_file", write("b.txt", "CHANGED"), { stepId: "s1" }));
  await Promise.all([run.end(), other.end()]);
});

test("scope run covers later calls of that tool in that run only", async () => {
  const name = await agent();
  const run = await runtime.startRun({ agent: name });
  const approval = approvalOf(await run.callTool("files.write_file", write("c1.txt", "1")));
  await runtime.approvals.decide(approval.id, { decision: "approve", scope: "run", by: "alice" });
  assert.equal((await run.resume())?.status, "ok");
  assert.equal((await run.callTool("files.write_file", write("c2.txt", "2"))).status, "ok");
  approvalOf(await run.callTool("files.edit_file", { path: "/work/c2.txt", old_text: "2", new_text: "3" }));
  const other = await runtime.startRun({ agent: name });
  const unused = approvalOf(await other.callTool("files.write_file", write("c3.txt", "3")));
  await Promise.all([run.end(), other.end()]);
  // Once the runs ended: the approval the run used reads used; the one nobody ever used (control) withdrawn.
  assert.equal((await runtime.approvals.get(approval.id))?.status, "used");
  assert.equal((await runtime.approvals.get(unused.id))?.status, "withdrawn");
});

test("a denied approval ends the ToolCall with approval-denied; nothing is written", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const approval = approvalOf(await run.callTool("files.write_file", write("d.txt", "D")));
  await runtime.approvals.decide(approval.id, { decision: "deny", by: "bob", reason: "not today" });
  const replay = await run.resume();
  assert.equal(replay?.status, "error");
  assert.equal((replay as { error: { kind: string } }).error.kind, "approval-denied");
  await assert.rejects(readFile(join(work, "d.txt")), { code: "ENOENT" });
  await run.end();
});

test("an approval expires", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const approval = approvalOf(await run.callTool("files.write_file", write("e.txt", "E")));
  now += 24 * 60 * 60 * 1000;
  await assert.rejects(runtime.approvals.decide(approval.id, { decision: "approve", by: "alice" }), { code: "approval_expired" });
  const replay = await run.resume();
  assert.equal((replay as { error: { kind: string } }).error.kind, "approval-expired");
  await run.end();
});

test("an Unsafe tool's effect is approved on its own, bound to the exact host call", async () => {
  const run = await runtime.startRun({ agent: await agent({ raise: [{ tool: "files.write_file", to: "unsafe" }] }) });
  const first = await run.callTool("files.write_file", write("u.txt", "U"));
  const approval = approvalOf(first);
  assert.equal(approval.kind, "effect");
  await assert.rejects(readFile(join(work, "u.txt")), { code: "ENOENT" });
  const stored = await runtime.approvals.get(approval.id);
  assert.deepEqual(stored?.effect, { bytes: 1, fn: "write", path: "/work/u.txt" });
  assert.equal(runtime.sandbox.instancesOf(run.id), 0, "the paused run holds no instance");
  await runtime.approvals.decide(approval.id, { decision: "approve", by: "alice" });
  assert.equal((await run.resume())?.status, "ok");
  assert.equal(await readFile(join(work, "u.txt"), "utf8"), "U");
  // The same tool with other arguments is another effect: it needs a new approval.
  assert.equal(approvalOf(await run.callTool("files.write_file", write("u2.txt", "U2"))).kind, "effect");
  await run.end();
});

test("a step-level elevation restores a narrowed grant for its step only", async () => {
  const name = await agent({ lowerToSafe: ["files.write_file"] });
  const readOnly = { "fs.read": { mounts: [{ guest: "/work", host: work }] } };
  const run = await runtime.startRun({ agent: name, grants: readOnly });
  const denied = await run.callTool("files.write_file", write("f.txt", "F"));
  assert.equal((denied as { error: { denial: { reason: string } } }).error.denial.reason, "narrowed-by-task");
  const elevation = { "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] } };
  assert.equal((await run.callTool("files.write_file", write("f.txt", "F"), { elevation })).status, "ok");
  const after = await run.callTool("files.write_file", write("f2.txt", "F2"));
  assert.equal((after as { error: { denial: { reason: string } } }).error.denial.reason, "narrowed-by-task", "the elevation ended with its step");
  const wider = { "fs.write": { mounts: [{ guest: "/other", host: await tempDir(), mode: "rw" }] } };
  await assert.rejects(run.callTool("files.write_file", write("g.txt", "G"), { elevation: wider }), { code: "invalid_input" });
  await run.end();
});

test("every call has its audit records, denials included, under the run's trace", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  await run.callTool("files.read_file", { path: "/work/notes.txt" });
  await run.callTool("files.read_file", { path: "/etc/passwd" });
  const { records } = await runtime.audit.query({ runId: run.id, limit: 100 });
  assert.ok(records.every((r) => r.traceId === run.traceId));
  const host = records.filter((r) => r.kind === "host_call");
  const tool = records.filter((r) => r.kind === "tool_call");
  assert.deepEqual(tool.map((r) => r.status), ["intent", "ok", "intent", "error"]);
  assert.deepEqual(host.map((r) => r.status), ["intent", "ok", "denied"]);
  assert.equal(host[2]?.denial?.reason, "outside-mount");
  assert.equal(host[0]?.hostCall?.function, "read");
  const verify = await runtime.audit.verify();
  assert.equal(verify.ok, true);
  await run.end();
});

test("a failing audit write prevents the effect", async () => {
  const run = await runtime.startRun({ agent: await agent({ lowerToSafe: ["files.write_file"] }) });
  const audit = runtime.audit as { appendIntent: (...args: unknown[]) => Promise<unknown> };
  const original = audit.appendIntent;
  let calls = 0;
  audit.appendIntent = async function (this: unknown, ...args: unknown[]) {
    // The host call's intent fails (the ToolCall's own is deferred: see the next test).
    if (++calls === 1) throw new Error("disk full");
    return original.apply(this, args);
  };
  try {
    const outcome = await run.callTool("files.write_file", write("never.txt", "X"));
    assert.equal(outcome.status, "error");
    await assert.rejects(readFile(join(work, "never.txt")), { code: "ENOENT" });
  } finally {
    audit.appendIntent = original;
  }
  // Control: with the audit healthy, the same write happens.
  assert.equal((await run.callTool("files.write_file", write("never.txt", "X"))).status, "ok");
  await run.end();
});

test("a ToolCall whose own intent cannot be written makes no effect, though its guest already started", async () => {
  const run = await runtime.startRun({ agent: await agent({ lowerToSafe: ["files.write_file"] }) });
  const audit = runtime.audit as { deferIntent: (...args: unknown[]) => unknown; appendIntent: (...args: unknown[]) => Promise<unknown> };
  const deferIntent = audit.deferIntent;
  const appendIntent = audit.appendIntent;
  let hostIntents = 0;
  // The ToolCall's intent fails late (after the guest is running); a host call's would pass.
  audit.deferIntent = () => ({ ensure: () => new Promise((_, reject) => setTimeout(() => reject(new Error("disk full")), 20)) });
  audit.appendIntent = async function (this: unknown, ...args: unknown[]) {
    hostIntents++;
    return appendIntent.apply(this, args);
  };
  try {
    const outcome = await run.callTool("files.write_file", write("unrecorded.txt", "X"));
    assert.equal(outcome.status, "error");
    assert.equal((outcome as { error: { kind: string } }).error.kind, "audit-failed");
    await assert.rejects(readFile(join(work, "unrecorded.txt")), { code: "ENOENT" });
    // The effect's intent is queued behind the ToolCall's and shares its commit; the effect is
    // refused once that commit says the ToolCall is not on record (its file is absent, above).
    assert.ok(hostIntents <= 1, `at most the effect's own intent was written: ${hostIntents}`);
  } finally {
    audit.deferIntent = deferIntent;
    audit.appendIntent = appendIntent;
  }
  assert.equal((await run.callTool("files.write_file", write("unrecorded.txt", "X"))).status, "ok");
  await run.end();
});

test("the least-privilege report shows granted, used, unused and denied", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  await run.callTool("files.read_file", { path: "/work/notes.txt" });
  await run.callTool("files.read_file", { path: "/work/.env" });
  const report = await run.end();
  assert.deepEqual(report.granted, ["fs.read", "fs.write", "log"]);
  assert.deepEqual(report.used, ["fs.read"]);
  assert.deepEqual(report.unused, ["fs.write", "log"]);
  assert.equal(report.denials[0]?.reason, "sensitive-name");
  const record = await runtime.records.get(run.id);
  assert.deepEqual(record?.report, report);
  assert.equal(record?.status, "ended");
});

test("a child run is held to its parent's grant, whatever its own manifest says", async () => {
  const parent = await runtime.startRun({ agent: await agent(), grants: { "fs.read": { mounts: [{ guest: "/work", host: work }] } } });
  const child = await runtime.startRun({ agent: await agent({ lowerToSafe: ["files.write_file"] }), parentRunId: parent.id, traceId: parent.traceId });
  const denied = await child.callTool("files.write_file", write("child.txt", "C"));
  assert.equal((denied as { error: { denial: { reason: string } } }).error.denial.reason, "not-granted-to-parent");
  // Control: what the parent may do, the child may do.
  assert.equal((await child.callTool("files.read_file", { path: "/work/notes.txt" })).status, "ok");
  const { records } = await runtime.audit.query({ traceId: parent.traceId, limit: 100 });
  assert.ok(records.some((r) => r.runId === child.id && r.parentRunId === parent.id));
  await Promise.all([child.end(), parent.end()]);
});

test("a request waits as long as the agent's approvals.expiry_minutes says", async () => {
  const name = `ap${++n}`;
  await runtime.defineAgent({
    name,
    description: "short expiry",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "files", version: "*" }],
    grants: { "fs.read": { mounts: [{ guest: "/work", host: work }] }, "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] } },
    approvals: { expiry_minutes: 5 },
  });
  const run = await runtime.startRun({ agent: name });
  const approval = approvalOf(await run.callTool("files.write_file", write("x.txt", "X")));
  assert.equal(approval.expiresAt - now, 5 * 60_000);
  now += 6 * 60_000;
  assert.equal((await runtime.approvals.get(approval.id))?.status, "expired");
  // Control: a default agent's request is still pending after the same wait.
  const other = await runtime.startRun({ agent: await agent() });
  const pending = approvalOf(await other.callTool("files.write_file", write("y.txt", "Y")));
  now += 6 * 60_000;
  assert.equal((await runtime.approvals.get(pending.id))?.status, "pending");
  await Promise.all([run.end(), other.end()]);
});

test("a stored secret is redacted from the audit log, even in a tool's arguments", async () => {
  await runtime.setSecret("api-token", "tok_live_9f8e7d6c5b4a");
  const run = await runtime.startRun({ agent: await agent() });
  await run.callTool("files.read_file", { path: "/work/tok_live_9f8e7d6c5b4a.txt" });
  const { records } = await runtime.audit.query({ runId: run.id, limit: 100 });
  const text = JSON.stringify(records);
  assert.ok(!text.includes("tok_live_9f8e7d6c5b4a"), "the value is nowhere in the records");
  assert.ok(text.includes("[REDACTED]"));
  // Control: the call itself ran (it was denied by the fs proxy as not-found, after being recorded).
  assert.ok(records.some((r) => r.kind === "host_call"));
  await run.end();
});
