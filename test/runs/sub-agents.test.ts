import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Run, Runtime } from "../../runtime/index.js";
import { toWireToolName } from "../../runtime/llm/tool-names.js";
import { cancelSubAgentRuns, runChain, spawnResultContent, spawnSubAgent, subAgentProblems, subAgentTools, type SpawnResult } from "../../runtime/runs/sub-agents.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 } }));
  work = await tempDir();
  await writeFile(join(work, "notes.txt"), "one\n");
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

interface AgentSpec {
  write?: boolean;
  spawn?: string[];
  subAgents?: string[];
  maxDepth?: number;
  /** files.write_file lowered to Safe (else it is Guarded and asks a person). */
  safeWrite?: boolean;
}

/** Defines agent `<prefix><n>` on /work (read, and write when asked); returns its name. */
async function agent(prefix: string, spec: AgentSpec = {}): Promise<string> {
  const name = `${prefix}${++n}`;
  const mount = { guest: "/work", host: work };
  const grants: Record<string, unknown> = { log: {}, "fs.read": { mounts: [mount] } };
  if (spec.write) grants["fs.write"] = { mounts: [{ ...mount, mode: "rw" }] };
  if (spec.spawn) grants["agent.spawn"] = { agents: spec.spawn };
  await runtime.defineAgent({
    name,
    description: `sub-agent test agent ${name}`,
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "files", version: "*" }],
    grants,
    sub_agents: spec.subAgents ?? spec.spawn ?? [],
    limits: spec.maxDepth === undefined ? {} : { max_depth: spec.maxDepth },
    approvals: { lower_risk: spec.safeWrite ? [{ tool: "files.write_file", to: "safe", acknowledged: true }] : [] },
  });
  return name;
}

const read = { name: "files.read_file", input: { path: "/work/notes.txt" } };
const writeCall = (file: string) => ({ name: "files.write_file", input: { path: `/work/${file}`, content: "x" } });

function ran(result: SpawnResult) {
  assert.notEqual(result.status, "denied", JSON.stringify(result));
  return result as Exclude<SpawnResult, { status: "denied" }>;
}
function denied(result: SpawnResult) {
  assert.equal(result.status, "denied", JSON.stringify(result));
  return (result as Extract<SpawnResult, { status: "denied" }>).denial;
}
type Outcome = { status: string; output?: unknown; error?: { denial?: { reason: string; message: string } } };
const outcomes = (result: SpawnResult) => ran(result).outcomes as Outcome[];

/** Parent `p` → child of agent `c`, started live (as a model-driven child would be while its loop runs). */
async function liveChild(parent: Run, child: string): Promise<Run> {
  return runtime.startRun({ agent: child, task: "live child", parentRunId: parent.id, traceId: parent.traceId });
}

test("through its manifest: a child granted fs.write under a parent with fs.read only is denied, the parent layer named", async () => {
  const child = await agent("wide", { write: true, safeWrite: true });
  const parent = await runtime.startRun({ agent: await agent("narrow", { spawn: [child] }) });
  const [write, control] = outcomes(await spawnSubAgent(runtime, parent, { agent: child, toolCalls: [writeCall("manifest.txt"), read] }));
  assert.equal(write?.status, "error");
  assert.equal(write?.error?.denial?.reason, "not-granted-to-parent");
  assert.match(write?.error?.denial?.message ?? "", new RegExp(`parent agent ${parent.agent.name}`));
  await assert.rejects(readFile(join(work, "manifest.txt")), { code: "ENOENT" });
  // Control: what the parent may do, the child may do.
  assert.equal(control?.status, "ok", JSON.stringify(control));
  await parent.end();
});

test("through the task request: a child task grant wider than the parent is refused and audited; a narrower one runs", async () => {
  const child = await agent("wide", { write: true, safeWrite: true });
  const parent = await runtime.startRun({ agent: await agent("narrow", { spawn: [child] }) });
  const wider = { "fs.read": { mounts: [{ guest: "/work", host: work }] }, "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] } };
  const denial = denied(await spawnSubAgent(runtime, parent, { agent: child, grants: wider, toolCalls: [writeCall("task.txt")] }));
  assert.equal(denial.reason, "wider-than-parent");
  assert.match(denial.message, /fs\.write/);
  // A parent task that narrowed itself narrows what it can hand down, too.
  const narrowedParent = await runtime.startRun({ agent: await agent("both", { write: true, spawn: [child] }), grants: { "agent.spawn": { agents: [child] }, "fs.read": { mounts: [{ guest: "/work", host: work }] } } });
  assert.equal(denied(await spawnSubAgent(runtime, narrowedParent, { agent: child, grants: wider, toolCalls: [read] })).reason, "wider-than-parent");
  // A request beyond the child's own manifest is a caller mistake.
  await assert.rejects(spawnSubAgent(runtime, parent, { agent: child, grants: { "http.fetch": { hosts: ["example.com"] } }, toolCalls: [read] }), { code: "invalid_input" });
  const { records } = await runtime.audit.query({ runId: parent.id, limit: 50 });
  assert.ok(records.some((r) => r.status === "denied" && r.tool === `subagent_${child}`), "the refusal is audited in the parent's run");
  // Control: a grant within the parent's runs.
  const [ok] = outcomes(await spawnSubAgent(runtime, parent, { agent: child, grants: { "fs.read": { mounts: [{ guest: "/work", host: work }] } }, toolCalls: [read] }));
  assert.equal(ok?.status, "ok");
  await Promise.all([parent.end(), narrowedParent.end()]);
});

test("through nested spawning: a grandchild is held to its grandparent, both for spawning and for its calls", async () => {
  const grandchild = await agent("g", { write: true, safeWrite: true });
  const child = await agent("c", { write: true, spawn: [grandchild] });
  // The root may spawn the child only: the child cannot reach an agent the root could not.
  const strictRoot = await runtime.startRun({ agent: await agent("root", { spawn: [child] }) });
  const c1 = await liveChild(strictRoot, child);
  const spawnDenial = denied(await spawnSubAgent(runtime, c1, { agent: grandchild, toolCalls: [read] }));
  assert.equal(spawnDenial.reason, "agent-not-allowed");
  assert.match(spawnDenial.message, new RegExp(`^parent agent ${strictRoot.agent.name}: agent "${grandchild}" is not granted`));
  // The root names both: the grandchild starts, yet its write is denied by the root's layer.
  const root = await runtime.startRun({ agent: await agent("root", { spawn: [child, grandchild], subAgents: [child] }) });
  const c2 = await liveChild(root, child);
  const result = await spawnSubAgent(runtime, c2, { agent: grandchild, toolCalls: [writeCall("nested.txt"), read] });
  const [write, control] = outcomes(result);
  assert.equal(write?.error?.denial?.reason, "not-granted-to-parent");
  assert.match(write?.error?.denial?.message ?? "", new RegExp(`parent agent ${root.agent.name}`));
  await assert.rejects(readFile(join(work, "nested.txt")), { code: "ENOENT" });
  assert.equal(control?.status, "ok");
  assert.deepEqual((await runChain(runtime.records, ran(result).runId)).map((r) => r.agent), [root.agent.name, child, grandchild]);
  await Promise.all([c1.end(), c2.end(), strictRoot.end(), root.end()]);
});

test("spawning needs the sub-agent listed and agent.spawn naming it", async () => {
  const child = await agent("c");
  const unlisted = await runtime.startRun({ agent: await agent("p", { spawn: [child], subAgents: [] }) });
  assert.equal(denied(await spawnSubAgent(runtime, unlisted, { agent: child, toolCalls: [read] })).reason, "not-a-sub-agent");
  const ungranted = await runtime.startRun({ agent: await agent("p", { subAgents: [child] }) });
  assert.equal(denied(await spawnSubAgent(runtime, ungranted, { agent: child, toolCalls: [read] })).reason, "not-granted");
  const narrowedAway = await runtime.startRun({ agent: await agent("p", { spawn: [child] }), grants: { log: {} } });
  assert.equal(denied(await spawnSubAgent(runtime, narrowedAway, { agent: child, toolCalls: [read] })).reason, "narrowed-by-task");
  // Control.
  const allowed = await runtime.startRun({ agent: await agent("p", { spawn: [child] }) });
  assert.equal(ran(await spawnSubAgent(runtime, allowed, { agent: child, toolCalls: [read] })).status, "ended");
  await Promise.all([unlisted, ungranted, narrowedAway, allowed].map((r) => r.end()));
});

test("the depth limit: each ancestor's limits.max_depth holds below it", async () => {
  const leaf = await agent("leaf");
  const mid = await agent("mid", { spawn: [leaf] });
  // Root allows one level: its child may not spawn, even though the child's own limit is 3.
  const shallow = await runtime.startRun({ agent: await agent("root", { spawn: [mid, leaf], subAgents: [mid], maxDepth: 1 }) });
  const m1 = await liveChild(shallow, mid);
  const denial = denied(await spawnSubAgent(runtime, m1, { agent: leaf, toolCalls: [read] }));
  assert.equal(denial.reason, "max-depth");
  assert.match(denial.message, new RegExp(`${shallow.agent.name}, whose limits.max_depth is 1`));
  // max_depth 0: no sub-agents at all.
  const none = await runtime.startRun({ agent: await agent("root", { spawn: [leaf], maxDepth: 0 }) });
  assert.equal(denied(await spawnSubAgent(runtime, none, { agent: leaf, toolCalls: [read] })).reason, "max-depth");
  // Control: two levels allowed.
  const deep = await runtime.startRun({ agent: await agent("root", { spawn: [mid, leaf], subAgents: [mid], maxDepth: 2 }) });
  const m2 = await liveChild(deep, mid);
  assert.equal(ran(await spawnSubAgent(runtime, m2, { agent: leaf, toolCalls: [read] })).status, "ended");
  await Promise.all([m1, shallow, none, m2, deep].map((r) => r.end()));
});

test("trace continuity: the child shares the parent's trace_id and names it as parent_run_id, in runs and audit", async () => {
  const child = await agent("c");
  const parent = await runtime.startRun({ agent: await agent("p", { spawn: [child] }), ownerToken: "tok_owner" });
  const result = ran(await spawnSubAgent(runtime, parent, { agent: child, task: "read the notes", toolCalls: [read], stepId: "step_7" }));
  assert.equal(result.traceId, parent.traceId);
  const record = await runtime.records.get(result.runId);
  assert.equal(record?.parentRunId, parent.id);
  assert.equal(record?.traceId, parent.traceId);
  assert.equal(record?.ownerToken, "tok_owner", "the client that owns the parent sees the child");
  const { records } = await runtime.audit.query({ traceId: parent.traceId, limit: 100 });
  const spawn = records.filter((r) => r.runId === parent.id && r.tool === `subagent_${child}`);
  assert.deepEqual(spawn.map((r) => r.status), ["intent", "ok"], "the spawn: intent before, outcome after");
  assert.equal(spawn[0]?.stepId, "step_7");
  const childRecords = records.filter((r) => r.runId === result.runId);
  assert.ok(childRecords.length > 0);
  assert.ok(childRecords.every((r) => r.parentRunId === parent.id && r.traceId === parent.traceId));
  await parent.end();
});

test("an approval inside a child reaches the approvers with its parent and chain; once approved the child goes on", async () => {
  const child = await agent("c", { write: true });
  const parent = await runtime.startRun({ agent: await agent("p", { write: true, spawn: [child] }) });
  const result = ran(await spawnSubAgent(runtime, parent, { agent: child, toolCalls: [writeCall("approved.txt")] }));
  assert.equal(result.status, "awaiting_approval");
  const approval = await runtime.approvals.get(result.approvalId!);
  assert.equal(approval?.parentRunId, parent.id);
  assert.equal(approval?.traceId, parent.traceId);
  assert.equal(approval?.runId, result.runId);
  assert.ok((await runtime.approvals.list({ status: "pending", limit: 100 })).some((a) => a.id === approval?.id), "listed for approvers");
  assert.deepEqual(await runChain(runtime.records, approval!.runId), [
    { runId: parent.id, agent: parent.agent.name },
    { runId: result.runId, agent: child },
  ]);
  await runtime.approvals.decide(approval!.id, { decision: "approve", scope: "once", by: "alice" });
  assert.equal(await runtime.continueRun(result.runId), true);
  assert.equal(await readFile(join(work, "approved.txt"), "utf8"), "x");
  assert.equal((await runtime.records.get(result.runId))?.status, "ended");
  await parent.end();
});

test("cancelling the parent cancels its unfinished sub-agent runs, down the chain", async () => {
  const leaf = await agent("leaf");
  const mid = await agent("mid", { spawn: [leaf] });
  const root = await runtime.startRun({ agent: await agent("root", { spawn: [mid, leaf], subAgents: [mid] }) });
  const m = await liveChild(root, mid);
  const l = await liveChild(m, leaf);
  const other = await runtime.startRun({ agent: mid });
  assert.deepEqual(new Set(await cancelSubAgentRuns(runtime, root.id)), new Set([m.id, l.id]));
  // Wired into Runtime.cancelRun, this cascade runs there too; here it is called on its own first.
  await runtime.cancelRun(root.id);
  for (const id of [root.id, m.id, l.id]) assert.equal((await runtime.records.get(id))?.endReason, "cancelled", id);
  // Control: a run outside the chain goes on.
  assert.equal((await runtime.records.get(other.id))?.status, "active");
  assert.deepEqual(await cancelSubAgentRuns(runtime, root.id), [], "nothing left");
  await other.end();
});

test("sub-agent tools: one per listed and granted sub-agent, named so the wire keeps the name", async () => {
  const child = await agent("c");
  const ungranted = await agent("u");
  const parentName = await agent("p", { spawn: [child], subAgents: [child, ungranted] });
  const parent = runtime.agents().find((a) => a.name === parentName)!;
  const tools = subAgentTools(parent, { agents: runtime.agents() });
  assert.deepEqual(tools.map((t) => t.name), [`subagent_${child}`]);
  assert.match(tools[0]!.description, new RegExp(`sub-agent test agent ${child}`));
  assert.deepEqual(tools[0]!.inputSchema.required, ["task"]);
  assert.equal(toWireToolName(tools[0]!.name), tools[0]!.name);
  // A task that narrowed agent.spawn away hides it too.
  assert.deepEqual(subAgentTools(parent, { agents: runtime.agents(), taskGrants: {} }), []);
  assert.deepEqual(subAgentProblems(parent).map((p) => p.path), ["sub_agents[1]"]);
});

test("what the parent's model is told of a spawn", () => {
  const base = { runId: "run_c", traceId: "t", outcomes: [], approvalId: null };
  const table: ReadonlyArray<[SpawnResult, boolean, RegExp]> = [
    [{ ...base, status: "ended", endReason: "completed", result: "the answer" }, false, /^the answer$/],
    [{ ...base, status: "ended", endReason: "completed", result: null, outcomes: [{ status: "ok" }] }, false, /^\{"outcomes":\[\{"status":"ok"\}\]\}$/],
    [{ status: "denied", denial: { capability: "agent.spawn", reason: "max-depth", message: "too deep" } }, true, /"kind":"denied","message":"too deep","denial":\{"capability":"agent.spawn"/],
    [{ ...base, status: "awaiting_approval", endReason: null, result: null, approvalId: "apr_1" }, true, /"kind":"sub-agent-waiting".*approval apr_1/],
    [{ ...base, status: "ended", endReason: "cancelled", result: null }, true, /"kind":"sub-agent-cancelled"/],
    [{ ...base, status: "ended", endReason: "failed", result: "stopped: max_tool_rounds" }, true, /"kind":"sub-agent-failed","message":"stopped: max_tool_rounds"/],
  ];
  for (const [result, isError, content] of table) {
    const told = spawnResultContent(result);
    assert.equal(told.isError, isError, JSON.stringify(result));
    assert.match(told.content, content);
  }
});
