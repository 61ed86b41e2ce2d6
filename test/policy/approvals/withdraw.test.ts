import assert from "node:assert/strict";
import { test } from "node:test";
import { approvalMigrations, ApprovalStore, argsHash } from "../../../runtime/policy/approvals/index.js";
import { applyMigrations, openStore } from "../../../runtime/store/index.js";
import { testClock, toolCallRequest, withHarness, WRITE_ARGS } from "./_fixtures.js";

const MATCH = { runId: "run_1", stepId: "step_1", tool: "files.write_file", argsHash: argsHash(WRITE_ARGS) };

// [the approval's state when its run ends, is it withdrawn]
const ROWS: Array<[string, "pending" | "approved" | "denied" | "used", boolean]> = [
  ["pending: nobody may approve it any more", "pending", true],
  ["approved, not yet used: no replay may spend it", "approved", true],
  ["control: denied stays a denial", "denied", false],
  ["control: used stays used", "used", false],
];

for (const [what, state, withdrawn] of ROWS) {
  test(`a run's end withdraws its approvals: ${what}`, () =>
    withHarness(async ({ approvals }) => {
      const request = await approvals.request(toolCallRequest());
      if (state !== "pending") await approvals.decide(request.id, { decision: state === "denied" ? "deny" : "approve", by: "alice" });
      if (state === "used") assert.equal((await approvals.consumeToolCall(MATCH))?.id, request.id);
      // Another run's approval is never touched.
      const other = await approvals.request(toolCallRequest({ runId: "run_2" }));
      const ids = await approvals.withdrawForRun("run_1", "run run_1 was cancelled");
      assert.deepEqual(ids, withdrawn ? [request.id] : []);
      const after = (await approvals.get(request.id))!;
      assert.equal(after.status, withdrawn ? "withdrawn" : state);
      assert.equal((await approvals.get(other.id))?.status, "pending");
      if (!withdrawn) return;
      assert.equal(after.decisionReason, "run run_1 was cancelled");
      assert.equal(await approvals.consumeToolCall(MATCH), undefined, "a withdrawn approval matches no call");
      await assert.rejects(approvals.decide(request.id, { decision: "approve", by: "bob" }), (error: { code?: string; message?: string }) => {
        assert.equal(error.code, "approval_withdrawn");
        assert.match(error.message ?? "", /withdrawn \(run run_1 was cancelled\); nothing is left to approve/);
        return true;
      });
      assert.deepEqual((await approvals.list({ status: "withdrawn" })).map((a) => a.id), [request.id]);
    }));
}

test("approvals#3 keeps every row of a store made before 'withdrawn' existed", async () => {
  const clock = testClock();
  const store = await openStore({ url: ":memory:", clock });
  try {
    await applyMigrations(store, approvalMigrations.slice(0, 2), { clock });
    const old = new ApprovalStore(store, { clock });
    const pending = await old.request(toolCallRequest());
    const decided = await old.request(toolCallRequest({ runId: "run_2" }));
    await old.decide(decided.id, { decision: "deny", by: "alice", reason: "no" });
    const before = [await old.get(pending.id), await old.get(decided.id)];
    const report = await applyMigrations(store, approvalMigrations.slice(0, 3), { clock });
    assert.deepEqual(report.applied, ["approvals#3"]);
    const upgraded = new ApprovalStore(store, { clock });
    assert.deepEqual([await upgraded.get(pending.id), await upgraded.get(decided.id)], before);
    assert.deepEqual(await upgraded.withdrawForRun("run_1", "ended"), [pending.id]);
  } finally {
    await store.close();
  }
});
