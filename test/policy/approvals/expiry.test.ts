import assert from "node:assert/strict";
import { test } from "node:test";
import { ApprovalError, ApprovalStore } from "../../../runtime/policy/approvals/index.js";
import { openStore } from "../../../runtime/store/index.js";
import type { ToolCallMatch } from "../../../runtime/policy/approvals/index.js";
import { effectRequest, MINUTE, toolCallRequest, withHarness } from "./_fixtures.js";

const MATCH: Omit<ToolCallMatch, "argsHash"> = { runId: "run_1", stepId: "step_1", tool: "files.write_file" };

// [what, minutes after the request, expired?] with a 60-minute expiry
const PENDING: [string, number, boolean][] = [
  ["control: a minute before the deadline", 59, false],
  ["at the deadline", 60, true],
  ["long after", 600, true],
];

for (const [what, minutes, expired] of PENDING) {
  test(`a pending request ${what} → ${expired ? "expired, cannot be decided (410)" : "still pending and decidable"}`, () =>
    withHarness(async ({ approvals, clock }) => {
      const request = await approvals.request(toolCallRequest());
      clock.advance(minutes * MINUTE);
      assert.equal((await approvals.get(request.id))?.status, expired ? "expired" : "pending");
      assert.equal((await approvals.pendingForRun("run_1")).length, expired ? 0 : 1);
      assert.deepEqual(
        (await approvals.list({ status: "expired" })).map((a) => a.id),
        expired ? [request.id] : [],
      );
      const decision = approvals.decide(request.id, { decision: "approve", by: "alice" });
      if (!expired) return void assert.equal((await decision).status, "approved");
      await assert.rejects(decision, (error: unknown) => {
        assert.ok(error instanceof ApprovalError);
        assert.deepEqual([error.code, error.status], ["approval_expired", 410]);
        return true;
      });
    }));
}

test("deciding a request that expired unseen (no read marked it) → 410 and it is marked expired", () =>
  withHarness(async ({ approvals, clock }) => {
    const request = await approvals.request(effectRequest());
    clock.advance(61 * MINUTE);
    await assert.rejects(approvals.decide(request.id, { decision: "deny", by: "alice" }), /expired at 2025-01-01T13:00:00.000Z/);
    assert.equal((await approvals.get(request.id))?.status, "expired");
  }));

// [what, scope, minutes after approval, usable?] with a 60-minute expiry
const APPROVED: [string, "once" | "run", number, boolean][] = [
  ["control: once, before its deadline", "once", 59, true],
  ["once, after its deadline", "once", 60, false],
  ["control: run, before its deadline", "run", 59, true],
  ["run, after its deadline", "run", 61, false],
];

for (const [what, scope, minutes, usable] of APPROVED) {
  test(`an approved approval ${what} → ${usable ? "consumed" : "refused and reported expired"}`, () =>
    withHarness(async ({ approvals, clock }) => {
      const request = await approvals.request(toolCallRequest());
      await approvals.decide(request.id, { decision: "approve", scope, by: "alice" });
      clock.advance(minutes * MINUTE);
      const used = await approvals.consumeToolCall({ ...MATCH, argsHash: request.argsHash });
      assert.equal(used?.id, usable ? request.id : undefined);
      if (!usable) assert.equal((await approvals.get(request.id))?.status, "expired");
    }));
}

test("an approval's usable window counts from the decision (approvedExpiryMinutes)", () =>
  withHarness(
    async ({ approvals, clock }) => {
      const late = await approvals.request(toolCallRequest());
      clock.advance(50 * MINUTE);
      const decided = await approvals.decide(late.id, { decision: "approve", by: "alice" });
      assert.equal(decided.expiresAt, clock.now() + 10 * MINUTE);
      clock.advance(9 * MINUTE);
      assert.equal((await approvals.consumeToolCall({ ...MATCH, argsHash: late.argsHash }))?.id, late.id, "control: within 10 minutes");
      const other = await approvals.request(toolCallRequest({ stepId: "step_2" }));
      await approvals.decide(other.id, { decision: "approve", by: "alice" });
      clock.advance(10 * MINUTE);
      assert.equal(await approvals.consumeToolCall({ ...MATCH, stepId: "step_2", argsHash: other.argsHash }), undefined);
    },
    { expiryMinutes: 60, approvedExpiryMinutes: 10 },
  ));

test("a denial does not expire: findDenied still finds it after the deadline", () =>
  withHarness(async ({ approvals, clock }) => {
    const request = await approvals.request(toolCallRequest());
    await approvals.decide(request.id, { decision: "deny", by: "alice" });
    clock.advance(24 * 60 * MINUTE);
    assert.equal((await approvals.get(request.id))?.status, "denied");
    const found = await approvals.findDenied({ kind: "tool_call", ...MATCH, argsHash: request.argsHash });
    assert.equal(found?.id, request.id);
  }));

test("after a request expires the same call may ask again: a new pending approval, not the expired one", () =>
  withHarness(async ({ approvals, clock }) => {
    const first = await approvals.request(toolCallRequest());
    clock.advance(60 * MINUTE);
    const second = await approvals.request(toolCallRequest());
    assert.notEqual(second.id, first.id);
    assert.equal(second.status, "pending");
    assert.equal((await approvals.get(first.id))?.status, "expired");
  }));

test("expiry options must be positive minutes; control: half a minute is accepted", async () => {
  const store = await openStore({ url: ":memory:" });
  try {
    const clock = { now: () => 0 };
    assert.throws(() => new ApprovalStore(store, { clock, expiryMinutes: 0 }), /expiryMinutes: 0 must be a positive/);
    assert.throws(() => new ApprovalStore(store, { clock, approvedExpiryMinutes: -1 }), /approvedExpiryMinutes/);
    assert.ok(new ApprovalStore(store, { clock, expiryMinutes: 0.5 }));
  } finally {
    await store.close();
  }
});
