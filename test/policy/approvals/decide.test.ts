import assert from "node:assert/strict";
import { test } from "node:test";
import { ClawhiveError, InvalidInputError } from "../../../runtime/errors.js";
import { ApprovalError } from "../../../runtime/policy/approvals/index.js";
import type { DecideInput } from "../../../runtime/policy/approvals/index.js";
import { toolCallRequest, withHarness } from "./_fixtures.js";

function isApprovalError(code: string, status: number) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ApprovalError, `expected ApprovalError, got ${String(error)}`);
    assert.ok(error instanceof ClawhiveError);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    return true;
  };
}

test("approve records who, when and why", () =>
  withHarness(async ({ approvals, clock }) => {
    const request = await approvals.request(toolCallRequest());
    clock.advance(5000);
    const decided = await approvals.decide(request.id, { decision: "approve", scope: "run", by: "alice", reason: "routine" });
    assert.deepEqual(
      [decided.status, decided.decision, decided.scope, decided.decidedBy, decided.decidedAt, decided.decisionReason],
      ["approved", "approve", "run", "alice", clock.now(), "routine"],
    );
  }));

test("deny: recorded, refuses the call, and is found by findDenied; control: an approval runs it", () =>
  withHarness(async ({ approvals, clock }) => {
    const denied = await approvals.request(toolCallRequest());
    const decided = await approvals.decide(denied.id, { decision: "deny", by: "bob", reason: "wrong folder" });
    assert.deepEqual(
      [decided.status, decided.decision, decided.decidedBy, decided.decidedAt, decided.decisionReason],
      ["denied", "deny", "bob", clock.now(), "wrong folder"],
    );
    const match = { runId: "run_1", stepId: "step_1", tool: "files.write_file", argsHash: denied.argsHash };
    assert.equal(await approvals.consumeToolCall(match), undefined);
    assert.equal((await approvals.findDenied({ kind: "tool_call", ...match }))?.id, denied.id);
    const control = await approvals.request(toolCallRequest({ runId: "run_2" }));
    await approvals.decide(control.id, { decision: "approve", by: "bob" });
    assert.equal((await approvals.consumeToolCall({ ...match, runId: "run_2" }))?.id, control.id);
    assert.equal(await approvals.findDenied({ kind: "tool_call", ...match, runId: "run_2" }), undefined);
  }));

// [first decision, second decision]: the second always fails approval_not_pending, the first stands
const TWICE: [DecideInput, DecideInput][] = [
  [{ decision: "approve", by: "alice" }, { decision: "approve", by: "bob" }],
  [{ decision: "approve", by: "alice" }, { decision: "deny", by: "bob" }],
  [{ decision: "deny", by: "alice" }, { decision: "approve", by: "bob" }],
  [{ decision: "approve", scope: "run", by: "alice" }, { decision: "approve", scope: "once", by: "bob" }],
];

for (const [first, second] of TWICE) {
  test(`deciding twice: ${label(first)} then ${label(second)} → 409 approval_not_pending, the first stands`, () =>
    withHarness(async ({ approvals }) => {
      const request = await approvals.request(toolCallRequest());
      const decided = await approvals.decide(request.id, first);
      await assert.rejects(approvals.decide(request.id, second), isApprovalError("approval_not_pending", 409));
      assert.deepEqual(await approvals.get(request.id), decided);
    }));
}

test("deciding a used approval → 409 approval_not_pending", () =>
  withHarness(async ({ approvals }) => {
    const request = await approvals.request(toolCallRequest());
    await approvals.decide(request.id, { decision: "approve", by: "alice" });
    await approvals.consumeToolCall({ runId: "run_1", stepId: "step_1", tool: "files.write_file", argsHash: request.argsHash });
    await assert.rejects(approvals.decide(request.id, { decision: "deny", by: "bob" }), /already approved by alice \(now used\)/);
  }));

test("deciding an unknown id → 404 approval_not_found", () =>
  withHarness(async ({ approvals }) => {
    await assert.rejects(approvals.decide("apr_nope", { decision: "approve", by: "alice" }), isApprovalError("approval_not_found", 404));
  }));

for (const decisions of [["approve", "deny"], ["deny", "approve"], ["approve", "approve"]] as const) {
  test(`racing deciders (${decisions.join(" vs ")}) → exactly one wins, the other gets approval_not_pending`, () =>
    withHarness(async ({ approvals }) => {
      const request = await approvals.request(toolCallRequest());
      const results = await Promise.allSettled(decisions.map((decision, i) => approvals.decide(request.id, { decision, by: `person_${i}` })));
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r) => r.status === "rejected");
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.ok(lost[0]?.status === "rejected" && isApprovalError("approval_not_pending", 409)(lost[0].reason));
      const stored = await approvals.get(request.id);
      assert.ok(won[0]?.status === "fulfilled");
      assert.equal(stored?.decidedBy, won[0].value.decidedBy);
      assert.equal(stored?.decision, won[0].value.decision);
    }));
}

// [what, a bad decision, the field named]; control: the same request with the good value decides
const INVALID: [string, Record<string, unknown>, string][] = [
  ["an unknown decision", { decision: "maybe" }, "decision"],
  ["an unknown scope", { scope: "forever" }, "scope"],
  ["nobody deciding", { by: "" }, "by"],
  ["a blank decider", { by: "   " }, "by"],
];

for (const [what, bad, field] of INVALID) {
  test(`decide refuses ${what} (invalid_input on ${field}); control: a valid decision`, () =>
    withHarness(async ({ approvals }) => {
      const request = await approvals.request(toolCallRequest());
      const good: DecideInput = { decision: "approve", scope: "once", by: "alice" };
      await assert.rejects(approvals.decide(request.id, { ...good, ...bad } as unknown as DecideInput), (error: unknown) => {
        assert.ok(error instanceof InvalidInputError);
        assert.equal(error.field, field);
        return true;
      });
      assert.equal((await approvals.decide(request.id, good)).status, "approved");
    }));
}

function label(input: DecideInput): string {
  return input.scope === undefined ? input.decision : `${input.decision} (${input.scope})`;
}
