import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AuditError, openAuditLog, withAudit } from "../../runtime/audit/index.js";
import type { AuditLog } from "../../runtime/audit/index.js";
import { InvalidInputError } from "../../runtime/errors.js";
import { StoreError } from "../../runtime/store/index.js";
import type { BatchOptions, QueryResult, SqlExecutor, Statement, Store } from "../../runtime/store/index.js";
import { openTempStore } from "../store/temp-store.js";
import { hostIntent, ManualClock, openTempAuditLog } from "./fixtures.js";

/** A real store whose batches (the audit write path) fail while `failing` is set. */
class FlakyStore implements Store {
  failing = false;
  constructor(readonly inner: Store) {}
  get kind() {
    return this.inner.kind;
  }
  get location() {
    return this.inner.location;
  }
  execute(statement: Statement | string): Promise<QueryResult> {
    return this.inner.execute(statement);
  }
  batch(statements: readonly (Statement | string)[], options?: BatchOptions): Promise<QueryResult[]> {
    if (this.failing) return Promise.reject(new StoreError("store_failed", "store test: disk I/O error"));
    return this.inner.batch(statements, options);
  }
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: BatchOptions): Promise<T> {
    return this.inner.transaction(work, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function withFlaky(body: (log: AuditLog, store: FlakyStore) => Promise<void>): Promise<void> {
  const temp = await openTempStore();
  const store = new FlakyStore(temp.store);
  const log = await openAuditLog(store, { clock: new ManualClock() });
  try {
    await body(log, store);
  } finally {
    store.failing = false;
    await log.close();
    await temp.cleanup();
  }
}

function countingEffect(): { runs: number; effect: () => string } {
  const state = { runs: 0, effect: () => (state.runs++, "done") };
  return state;
}

const isWriteFailure = (e: unknown): boolean => e instanceof AuditError && e.code === "audit_write_failed" && e.status === 503;

describe("fail closed", () => {
  it("does not run the effect when the intent write fails", () =>
    withFlaky(async (log, store) => {
      store.failing = true;
      const probe = countingEffect();
      await assert.rejects(withAudit(log, { intent: hostIntent(), effect: probe.effect }), isWriteFailure);
      assert.equal(probe.runs, 0);
    }));

  it("runs the effect once, after the intent, when the write succeeds (control)", () =>
    withFlaky(async (log) => {
      const seen: string[] = [];
      const result = await withAudit(log, {
        intent: hostIntent(),
        effect: async (intent) => {
          const stored = await log.query();
          seen.push(`effect saw intent ${intent.seq} stored: ${stored.records.some((r) => r.seq === intent.seq)}`);
          return "done";
        },
        resultSize: (value) => value.length,
      });
      assert.equal(result, "done");
      assert.deepEqual(seen, ["effect saw intent 1 stored: true"]);
      const records = (await log.query()).records;
      assert.deepEqual(records.map((r) => [r.status, r.intentSeq, r.resultSize]), [["intent", null, null], ["ok", 1, 4]]);
    }));

  it("does not run the effect when the database refuses the insert (a real SQL failure)", async () => {
    const t = await openTempAuditLog();
    try {
      await t.store.execute("CREATE TRIGGER refuse_all BEFORE INSERT ON audit_records BEGIN SELECT RAISE(ABORT, 'disk full'); END");
      const probe = countingEffect();
      await assert.rejects(withAudit(t.log, { intent: hostIntent(), effect: probe.effect }), isWriteFailure);
      assert.equal(probe.runs, 0);
      await t.store.execute("DROP TRIGGER refuse_all");
      await withAudit(t.log, { intent: hostIntent(), effect: probe.effect });
      assert.equal(probe.runs, 1, "runs once the store accepts writes again (control)");
      assert.equal((await t.log.verify()).ok, true);
    } finally {
      await t.cleanup();
    }
  });

  it("does not run the effect when the store was closed under the log", async () => {
    const t = await openTempAuditLog();
    try {
      await t.store.close();
      const probe = countingEffect();
      await assert.rejects(withAudit(t.log, { intent: hostIntent(), effect: probe.effect }), isWriteFailure);
      assert.equal(probe.runs, 0);
    } finally {
      await t.cleanup();
    }
  });

  it("does not run the effect once the log is closed", () =>
    withFlaky(async (log) => {
      await log.close();
      const probe = countingEffect();
      await assert.rejects(withAudit(log, { intent: hostIntent(), effect: probe.effect }), (e: unknown) => e instanceof AuditError && e.code === "audit_closed");
      assert.equal(probe.runs, 0);
    }));

  it("does not run the effect for an intent it cannot record (invalid input)", () =>
    withFlaky(async (log) => {
      const probe = countingEffect();
      await assert.rejects(withAudit(log, { intent: hostIntent({ runId: "" }), effect: probe.effect }), InvalidInputError);
      assert.equal(probe.runs, 0);
    }));

  it("records an error outcome when the effect throws, and rethrows the effect's own error", () =>
    withFlaky(async (log) => {
      const failure = Object.assign(new Error("no such file"), { code: "not_found" });
      await assert.rejects(withAudit(log, { intent: hostIntent(), effect: () => Promise.reject(failure) }), (e) => e === failure);
      const outcome = (await log.query({ status: "error" })).records[0];
      assert.deepEqual(outcome?.error, { code: "not_found", message: "no such file" });
    }));

  it("withholds the result when the outcome cannot be recorded; the intent stays in flight", () =>
    withFlaky(async (log, store) => {
      await assert.rejects(
        withAudit(log, {
          intent: hostIntent(),
          effect: () => {
            store.failing = true;
            return "done";
          },
        }),
        (e: unknown) => e instanceof AuditError && e.code === "audit_outcome_failed",
      );
      store.failing = false;
      const report = await log.verify();
      assert.equal(report.ok, true);
      assert.deepEqual(report.inFlight.map((i) => i.seq), [1]);
    }));

  it("fails every caller of a failed batch, then recovers with an unbroken chain", () =>
    withFlaky(async (log, store) => {
      store.failing = true;
      const failed = await Promise.allSettled(Array.from({ length: 5 }, () => log.appendIntent(hostIntent())));
      assert.deepEqual(failed.map((r) => r.status), Array(5).fill("rejected"));
      store.failing = false;
      const written = await Promise.all(Array.from({ length: 5 }, () => log.appendIntent(hostIntent())));
      assert.deepEqual(written.map((r) => r.seq), [1, 2, 3, 4, 5]);
      assert.equal((await log.verify()).ok, true);
    }));
});
