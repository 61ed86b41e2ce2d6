import assert from "node:assert/strict";
import { test } from "node:test";
import { argsHash } from "../../../runtime/policy/approvals/index.js";
import type { ToolCallMatch } from "../../../runtime/policy/approvals/index.js";
import { toolCallRequest, withHarness, WRITE_ARGS } from "./_fixtures.js";

const APPROVED: ToolCallMatch = { runId: "run_1", stepId: "step_1", tool: "files.write_file", argsHash: argsHash(WRITE_ARGS) };

// [what, the call that tries to use a `once` approval of APPROVED, does it match]
const ONCE_ROWS: [string, ToolCallMatch, boolean][] = [
  ["control: the same call", APPROVED, true],
  ["control: the same arguments, keys in another order", { ...APPROVED, argsHash: argsHash({ text: "hello", path: "notes/a.txt" }) }, true],
  ["arguments changed", { ...APPROVED, argsHash: argsHash({ ...WRITE_ARGS, text: "rm -rf /" }) }, false],
  ["an argument added", { ...APPROVED, argsHash: argsHash({ ...WRITE_ARGS, mode: "append" }) }, false],
  ["a different step", { ...APPROVED, stepId: "step_2" }, false],
  ["a different tool", { ...APPROVED, tool: "files.remove_file" }, false],
  ["a different run", { ...APPROVED, runId: "run_2" }, false],
];

for (const [what, match, matches] of ONCE_ROWS) {
  test(`once approval: ${what} → ${matches ? "runs" : "refused"}`, () =>
    withHarness(async ({ approvals }) => {
      const request = await approvals.request(toolCallRequest());
      await approvals.decide(request.id, { decision: "approve", scope: "once", by: "alice" });
      const used = await approvals.consumeToolCall(match);
      assert.equal(used?.id, matches ? request.id : undefined);
      if (matches) assert.equal(used?.status, "used");
      else assert.equal((await approvals.get(request.id))?.status, "approved", "a refused call must not spend the approval");
    }));
}

test("once approval: consumed once, then a replay of the same call is refused", () =>
  withHarness(async ({ approvals, clock }) => {
    const request = await approvals.request(toolCallRequest());
    await approvals.decide(request.id, { decision: "approve", by: "alice" });
    clock.advance(1000);
    const first = await approvals.consumeToolCall(APPROVED);
    assert.equal(first?.id, request.id);
    assert.equal(first?.status, "used");
    assert.equal(first?.scope, "once", "scope defaults to once");
    assert.equal(first?.useCount, 1);
    assert.equal(first?.usedAt, clock.now());
    assert.equal(await approvals.consumeToolCall(APPROVED), undefined);
  }));

test("once approval: two calls racing for it → exactly one runs", () =>
  withHarness(async ({ approvals }) => {
    const request = await approvals.request(toolCallRequest());
    await approvals.decide(request.id, { decision: "approve", by: "alice" });
    const results = await Promise.all([approvals.consumeToolCall(APPROVED), approvals.consumeToolCall(APPROVED)]);
    assert.equal(results.filter((r) => r !== undefined).length, 1);
    assert.equal((await approvals.get(request.id))?.useCount, 1);
  }));

test("undecided and denied approvals match nothing; control: the approved one matches", () =>
  withHarness(async ({ approvals }) => {
    const pending = await approvals.request(toolCallRequest());
    assert.equal(await approvals.consumeToolCall(APPROVED), undefined, "pending");
    await approvals.decide(pending.id, { decision: "deny", by: "alice" });
    assert.equal(await approvals.consumeToolCall(APPROVED), undefined, "denied");
    const again = await approvals.request(toolCallRequest());
    assert.notEqual(again.id, pending.id, "a decided binding may be asked again");
    await approvals.decide(again.id, { decision: "approve", by: "alice" });
    assert.equal((await approvals.consumeToolCall(APPROVED))?.id, again.id);
  }));

// [what, a later call in the run, is it covered by a `run` approval of files.write_file in run_1]
const RUN_ROWS: [string, ToolCallMatch, boolean][] = [
  ["control: the same call", APPROVED, true],
  ["control: a later step, other arguments", { ...APPROVED, stepId: "step_9", argsHash: argsHash({ path: "b.txt", text: "x" }) }, true],
  ["another tool in the run", { ...APPROVED, tool: "files.remove_file" }, false],
  ["the same tool in another run", { ...APPROVED, runId: "run_2" }, false],
];

for (const [what, match, covered] of RUN_ROWS) {
  test(`run approval: ${what} → ${covered ? "runs" : "refused"}`, () =>
    withHarness(async ({ approvals }) => {
      const request = await approvals.request(toolCallRequest());
      await approvals.decide(request.id, { decision: "approve", scope: "run", by: "alice" });
      assert.equal((await approvals.consumeToolCall(match))?.id, covered ? request.id : undefined);
    }));
}

test("run approval: covers every later call and stays approved, counting uses", () =>
  withHarness(async ({ approvals }) => {
    const request = await approvals.request(toolCallRequest());
    await approvals.decide(request.id, { decision: "approve", scope: "run", by: "alice" });
    for (const step of ["step_2", "step_3", "step_4"]) {
      const used = await approvals.consumeToolCall({ ...APPROVED, stepId: step });
      assert.equal(used?.status, "approved");
    }
    assert.equal((await approvals.get(request.id))?.useCount, 3);
  }));

test("an exact once approval is used before a run approval of the same tool", () =>
  withHarness(async ({ approvals }) => {
    const forRun = await approvals.request(toolCallRequest({ stepId: "step_0", input: { path: "x" } }));
    await approvals.decide(forRun.id, { decision: "approve", scope: "run", by: "alice" });
    const once = await approvals.request(toolCallRequest());
    await approvals.decide(once.id, { decision: "approve", by: "bob" });
    assert.equal((await approvals.consumeToolCall(APPROVED))?.id, once.id);
    assert.equal((await approvals.consumeToolCall(APPROVED))?.id, forRun.id, "control: then the run approval covers the replay");
  }));

test("findDenied: a denied once covers only its call; a denied run covers the tool in the run", () =>
  withHarness(async ({ approvals }) => {
    const once = await approvals.request(toolCallRequest());
    await approvals.decide(once.id, { decision: "deny", by: "alice", reason: "not that file" });
    assert.equal((await approvals.findDenied({ kind: "tool_call", ...APPROVED }))?.decisionReason, "not that file");
    assert.equal(await approvals.findDenied({ kind: "tool_call", ...APPROVED, stepId: "step_2" }), undefined, "another step");
    const forRun = await approvals.request(toolCallRequest({ tool: "files.remove_file" }));
    await approvals.decide(forRun.id, { decision: "deny", scope: "run", by: "alice" });
    const other = { kind: "tool_call" as const, ...APPROVED, tool: "files.remove_file", stepId: "step_7" };
    assert.equal((await approvals.findDenied(other))?.id, forRun.id);
    assert.equal(await approvals.findDenied({ ...other, runId: "run_2" }), undefined, "another run");
  }));
