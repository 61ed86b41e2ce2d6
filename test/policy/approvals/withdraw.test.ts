import assert from "node:assert/strict";
import { test } from "node:test";
import { approvalMigrations, ApprovalStore, argsHash } from "../../../runtime/policy/approvals/index.js";
import { applyMigrations, openStore } from "../../../runtime/store/index.js";
import { testClock, toolCallRequest, withHarness, WRITE_ARGS } from "./_fixtures.js";
import type { Harness } from "./_fixtures.js";

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

// [what the run did with it, how it reads once its run ended]. `withdrawn` says "never used".
const RUN_SCOPED: Array<[string, (h: Harness, id: string) => Promise<void>, "used" | "expired" | "withdrawn"]> = [
  ["a run-scoped approval the run used reads used, the person's reason kept", async (h) => void (await h.approvals.consumeToolCall(MATCH)), "used"],
  ["a run-scoped approval used twice reads used", async (h) => void ((await h.approvals.consumeToolCall(MATCH)) && (await h.approvals.consumeToolCall(MATCH))), "used"],
  ["an approval past its deadline, never used, reads expired", async (h) => h.clock.advance(61 * 60_000), "expired"],
  ["control: a run-scoped approval never used is withdrawn", async () => undefined, "withdrawn"],
];

for (const [what, act, status] of RUN_SCOPED) {
  test(`a run's end: ${what}`, () =>
    withHarness(async (h) => {
      const request = await h.approvals.request(toolCallRequest());
      await h.approvals.decide(request.id, { decision: "approve", scope: "run", by: "alice", reason: "fine for this run" });
      await act(h, request.id);
      const ids = await h.approvals.withdrawForRun("run_1", "run run_1 ended (completed) before the approval was used");
      assert.deepEqual(ids, status === "withdrawn" ? [request.id] : []);
      const after = (await h.approvals.get(request.id))!;
      assert.equal(after.status, status);
      assert.equal(after.decisionReason, status === "withdrawn" ? "run run_1 ended (completed) before the approval was used" : "fine for this run");
      // On disk too, not only as a read reports it.
      const row = await h.store.execute({ sql: "SELECT status FROM approvals WHERE id = ?", args: [request.id] });
      assert.equal(row.rows[0]?.status, status);
      assert.equal(await h.approvals.consumeToolCall(MATCH), undefined, "nothing matches once the run ended");
    }));
}

test("approvals#3 keeps every row of a store made before 'withdrawn' existed", async () => {
  const clock = testClock();
  // Rows as a runtime of the time wrote them: filed by today's store, kept in the columns of approvals#2.
  const today = await openStore({ url: ":memory:", clock });
  const store = await openStore({ url: ":memory:", clock });
  try {
    await applyMigrations(today, approvalMigrations, { clock });
    const filer = new ApprovalStore(today, { clock });
    const pending = await filer.request(toolCallRequest());
    const decided = await filer.request(toolCallRequest({ runId: "run_2" }));
    await filer.decide(decided.id, { decision: "deny", by: "alice", reason: "no" });
    const before = [await filer.get(pending.id), await filer.get(decided.id)];
    await applyMigrations(store, approvalMigrations.slice(0, 2), { clock });
    const columns = (await store.execute("PRAGMA table_info(approvals)")).rows.map((r) => String(r.name));
    const old = await today.execute(`SELECT ${columns.join(", ")} FROM approvals ORDER BY id`);
    for (const row of old.rows) {
      await store.execute({ sql: `INSERT INTO approvals (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, args: columns.map((c) => row[c] ?? null) });
    }
    const report = await applyMigrations(store, approvalMigrations.slice(0, 3), { clock });
    assert.deepEqual(report.applied, ["approvals#3"]);
    assert.deepEqual((await store.execute(`SELECT ${columns.join(", ")} FROM approvals ORDER BY id`)).rows, old.rows);
    await applyMigrations(store, approvalMigrations, { clock });
    const upgraded = new ApprovalStore(store, { clock });
    assert.deepEqual([await upgraded.get(pending.id), await upgraded.get(decided.id)], before);
    assert.deepEqual(await upgraded.withdrawForRun("run_1", "ended"), [pending.id]);
  } finally {
    await store.close();
    await today.close();
  }
});
