import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { testRuntime } from "../helpers/runtime.js";
import { DESCENDANTS_SQL, unfinishedDescendants } from "../../runtime/runs/sub-agents.js";

/**
 * What the store says of runs waiting for a sub-agent: any node's driver tick finds a parent to
 * continue once its child has ended (not before), and each waiting ancestor shows the approval
 * the chain waits for now.
 */
let runtime: Runtime;
let dispose: () => Promise<void>;
let n = 0;

before(async () => ({ runtime, dispose } = await testRuntime()));
after(() => dispose());

async function run(parentRunId: string | null, options: { loop?: boolean } = {}): Promise<string> {
  const id = `run_wait_${++n}`;
  await runtime.records.create({ id, traceId: "t", taskId: `task_${n}`, parentRunId, agent: "a", plugins: [], task: "x", taskGrants: null, createdAt: n });
  // A run the model drives has loop state: only driven runs are continued by a tick.
  if (options.loop !== false) await runtime.store.execute({ sql: "INSERT INTO run_loops (run_id, state, updated_at) VALUES (?, '{}', 0)", args: [id] });
  return id;
}

const waitOn = (childRunId: string, approvalId: string) => ({ tool: "subagent_x", input: { task: "x" }, stepId: "step_1", approvalId, childRunId });
const listed = async () => (await runtime.records.decidedWaiting()).map((w) => w.id);

test("a parent is continued once its sub-agent has ended, not while it waits; the chain shows the approval asked last", async () => {
  const root = await run(null);
  const mid = await run(root);
  const leaf = await run(mid);
  await runtime.records.setPending(root, waitOn(mid, "apr_first"));
  await runtime.records.setPending(mid, waitOn(leaf, "apr_first"));
  assert.equal(await runtime.records.waitingFor(mid), root);
  assert.equal(await runtime.records.waitingFor(leaf), mid);
  assert.equal(await runtime.records.waitingFor(root), undefined);

  // The leaf asks again: every ancestor waiting on the chain now shows that approval.
  await runtime.records.setPending(leaf, { tool: "files.write_file", input: {}, stepId: "step_2", approvalId: "apr_second" });
  for (const id of [root, mid]) assert.equal((await runtime.records.get(id))?.pending?.approvalId, "apr_second", id);
  assert.equal((await runtime.records.get(mid))?.pending?.childRunId, leaf, "the child it waits for is kept");

  let ready = await listed();
  assert.ok(!ready.includes(root) && !ready.includes(mid), "nothing ended yet");
  await runtime.records.end(leaf, null, 100, "completed");
  ready = await listed();
  assert.ok(ready.includes(mid), "the leaf ended: its parent goes on");
  assert.ok(!ready.includes(root), "the root still waits for mid");
  await runtime.records.end(mid, null, 101, "cancelled");
  assert.ok((await listed()).includes(root), "mid ended (cancelled counts): the root goes on");
});

test("control: a run nobody drives (no plan, no loop state) waiting for a child is left to its caller", async () => {
  const parent = await run(null, { loop: false });
  const child = await run(parent);
  await runtime.records.setPending(parent, waitOn(child, "apr_x"));
  await runtime.records.end(child, null, 100, "completed");
  assert.ok(!(await listed()).includes(parent));
});

test("a run's unfinished descendants are found through the parent index, deepest first, without scanning runs", async () => {
  const root = await run(null);
  const child = await run(root);
  const grandchild = await run(child);
  const done = await run(root);
  await runtime.records.end(done, { granted: [], used: [], unused: [], denials: [], approvals: [], toolCalls: { ok: 0, error: 0, approval_required: 0 } } as never, 1, "completed");
  assert.deepEqual(await unfinishedDescendants(runtime.store, root), [grandchild, child]);
  assert.deepEqual(await unfinishedDescendants(runtime.store, grandchild), []);
  // Asked at every run's end: its plan must not read the whole runs table.
  const plan = await runtime.store.execute({ sql: `EXPLAIN QUERY PLAN ${DESCENDANTS_SQL}`, args: [root] });
  const steps = plan.rows.map((row) => String(row.detail));
  assert.ok(steps.some((s) => /SEARCH runs USING INDEX runs_parent/.test(s)), steps.join("\n"));
  assert.ok(!steps.some((s) => /^SCAN runs\b/.test(s)), steps.join("\n"));
});
