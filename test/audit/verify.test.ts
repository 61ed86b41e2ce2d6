import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { VerifyIssueKind } from "../../runtime/audit/index.js";
import { bodyText, chainHash } from "../../runtime/audit/chain.js";
import { bodyFromRow } from "../../runtime/audit/record.js";
import type { Store } from "../../runtime/store/index.js";
import { StoreError } from "../../runtime/store/index.js";
import { dropAppendOnlyGuards, hostDenial, hostIntent, openTempAuditLog } from "./fixtures.js";
import type { TempAuditLog } from "./fixtures.js";

/** Six records: three intent/outcome pairs. */
async function withChain(body: (t: TempAuditLog) => Promise<void>): Promise<void> {
  const t = await openTempAuditLog();
  try {
    for (let i = 0; i < 3; i++) {
      const intent = await t.log.appendIntent(hostIntent({ args: { path: `/work/notes/${i}.md` } }));
      await t.log.appendOutcome(intent, { status: "ok", resultSize: i });
    }
    await body(t);
  } finally {
    await t.cleanup();
  }
}

async function rehash(store: Store, seq: number): Promise<void> {
  const row = (await store.execute({ sql: "SELECT * FROM audit_records WHERE seq = ?", args: [seq] })).rows[0]!;
  const hash = chainHash(seq, String(row.prev_hash), bodyText(bodyFromRow(row)));
  await store.execute({ sql: "UPDATE audit_records SET hash = ? WHERE seq = ?", args: [hash, seq] });
}

const tampering: [string, (store: Store) => Promise<void>, [number, VerifyIssueKind][]][] = [
  ["an updated field", (s) => s.execute(`UPDATE audit_records SET args = '{"path":"/etc/shadow"}' WHERE seq = 3`).then(() => undefined), [[3, "altered"]]],
  ["an updated status", (s) => s.execute(`UPDATE audit_records SET status = 'error' WHERE seq = 4`).then(() => undefined), [[4, "altered"]]],
  [
    "an updated field with its own hash recomputed",
    async (s) => {
      await s.execute(`UPDATE audit_records SET args = '{"path":"/etc/shadow"}' WHERE seq = 3`);
      await rehash(s, 3);
    },
    [[4, "broken_link"]],
  ],
  ["a deleted record", (s) => s.execute("DELETE FROM audit_records WHERE seq = 3").then(() => undefined), [[4, "missing"], [4, "broken_link"], [4, "orphan_outcome"]]],
  ["a deleted first record", (s) => s.execute("DELETE FROM audit_records WHERE seq = 1").then(() => undefined), [[2, "missing"], [2, "broken_link"], [2, "orphan_outcome"]]],
  [
    "two records swapped",
    async (s) => {
      await s.execute("UPDATE audit_records SET seq = 100 WHERE seq = 3");
      await s.execute("UPDATE audit_records SET seq = 3 WHERE seq = 4");
      await s.execute("UPDATE audit_records SET seq = 4 WHERE seq = 100");
    },
    // The outcome now comes before its intent: an orphan, and the intent is left open.
    [[3, "broken_link"], [3, "altered"], [3, "orphan_outcome"], [4, "broken_link"], [4, "altered"], [5, "broken_link"]],
  ],
  [
    "a forged record appended with a made-up link",
    async (s) => {
      await s.execute(`INSERT INTO audit_records SELECT 7, '${"f".repeat(64)}', hash, kind, status, decision, intent_seq, trace_id, task_id, run_id, step_id,
        parent_run_id, agent, plugin, tool, tool_call_id, tool_call_name, proxy, host_function, args, args_bytes, args_truncated,
        requested_capabilities, granted_capabilities, approval_required, approval_result, denial_capability, denial_reason,
        denial_message, start_at, end_at, error_code, error_message, result_size FROM audit_records WHERE seq = 1`);
    },
    [[7, "broken_link"], [7, "altered"]],
  ],
];

describe("verify", () => {
  it("passes an untampered chain and reports its head (control)", () =>
    withChain(async ({ log }) => {
      await log.appendDenial(hostDenial());
      const report = await log.verify();
      assert.equal(report.ok, true);
      assert.deepEqual(report.issues, []);
      assert.deepEqual(report.inFlight, []);
      assert.equal(report.records, 7);
      const last = (await log.query({ order: "desc", limit: 1 })).records[0]!;
      assert.deepEqual(report.head, { seq: 7, hash: last.hash });
    }));

  for (const [label, tamper, expected] of tampering) {
    it(`detects ${label}, naming the seq`, () =>
      withChain(async ({ log, store }) => {
        await dropAppendOnlyGuards(store);
        await tamper(store);
        const report = await log.verify();
        assert.equal(report.ok, false);
        const found = report.issues.map((issue) => [issue.seq, issue.kind]);
        assert.deepEqual(found, expected);
      }));
  }

  it("detects records cut off the end only against a head recorded earlier", () =>
    withChain(async ({ log, store }) => {
      const head = (await log.verify()).head!;
      await dropAppendOnlyGuards(store);
      await store.execute("DELETE FROM audit_records WHERE seq >= 5");
      assert.equal((await log.verify()).ok, true, "a shorter chain is still a valid chain");
      const report = await log.verify({ expectedHead: head });
      assert.deepEqual(report.issues.map((i) => [i.seq, i.kind]), [[6, "head_mismatch"]]);
    }));

  it("accepts the recorded head while the chain has grown past it (control)", () =>
    withChain(async ({ log }) => {
      const head = (await log.verify()).head!;
      await log.appendDenial(hostDenial());
      assert.equal((await log.verify({ expectedHead: head })).ok, true);
    }));

  it("refuses UPDATE and DELETE through the append-only triggers; reads (control) work", () =>
    withChain(async ({ store }) => {
      await assert.rejects(store.execute("UPDATE audit_records SET args = NULL WHERE seq = 1"), (e: unknown) => e instanceof StoreError && /append-only/.test(e.message));
      await assert.rejects(store.execute("DELETE FROM audit_records WHERE seq = 1"), (e: unknown) => e instanceof StoreError && /append-only/.test(e.message));
      assert.equal((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]?.n, 6);
    }));

  it("reports intents without an outcome as in flight, apart from integrity", () =>
    withChain(async ({ log }) => {
      const open = await log.appendIntent(hostIntent({ runId: "run-open", tool: "send" }));
      const report = await log.verify();
      assert.equal(report.ok, true, "an open intent is not tampering");
      assert.deepEqual(report.inFlight, [
        { seq: open.seq, runId: "run-open", traceId: "trace-1", tool: "send", hostCall: { proxy: "fs", function: "read-file" }, startAt: open.startAt },
      ]);
      await log.appendOutcome(open, { status: "ok" });
      assert.deepEqual((await log.verify()).inFlight, [], "closed by its outcome (control)");
    }));

  it("reports an outcome whose intent is gone as an orphan", () =>
    withChain(async ({ log, store }) => {
      await dropAppendOnlyGuards(store);
      await store.execute("UPDATE audit_records SET intent_seq = 99 WHERE seq = 2");
      await rehash(store, 2);
      const report = await log.verify();
      assert.deepEqual(report.issues.map((i) => [i.seq, i.kind]), [[2, "orphan_outcome"], [3, "broken_link"]]);
      assert.deepEqual(report.inFlight.map((i) => i.seq), [1]);
    }));

  it("walks a chain longer than one page", async () => {
    const t = await openTempAuditLog();
    try {
      await Promise.all(Array.from({ length: 2500 }, () => t.log.appendDenial(hostDenial())));
      const report = await t.log.verify();
      assert.equal(report.ok, true);
      assert.equal(report.records, 2500);
    } finally {
      await t.cleanup();
    }
  });
});
