import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openAuditLog, withAudit } from "../../runtime/audit/index.js";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { tempDir } from "../store/temp-store.js";
import { startChild } from "./child-process.js";
import { hostIntent, openTempAuditLog } from "./fixtures.js";

async function storedSeqs(store: Store): Promise<number[]> {
  return (await store.execute("SELECT seq FROM audit_records ORDER BY seq")).rows.map((row) => Number(row.seq));
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe("concurrent appenders", () => {
  it("group-commits concurrent calls of one log into one linear chain", async () => {
    const t = await openTempAuditLog();
    try {
      await Promise.all(Array.from({ length: 500 }, (_, i) => withAudit(t.log, { intent: hostIntent({ runId: `run-${i % 7}` }), effect: () => i })));
      assert.deepEqual(await storedSeqs(t.store), range(1000));
      const report = await t.log.verify();
      assert.equal(report.ok, true);
      assert.deepEqual(report.inFlight, []);
      const { batches, records } = t.log.stats;
      assert.equal(records, 1000);
      assert.ok(batches < records / 10, `appends were batched: ${records} records in ${batches} commits`);
    } finally {
      await t.cleanup();
    }
  });

  it("works the same through the client driver (the code path a libSQL server uses)", async () => {
    const dir = await tempDir();
    const store = await openStore({ url: dir.url(), driver: "client" });
    try {
      const log = await openAuditLog(store);
      await Promise.all(Array.from({ length: 100 }, (_, i) => withAudit(log, { intent: hostIntent(), effect: () => i })));
      assert.deepEqual(await storedSeqs(store), range(200));
      assert.equal((await log.verify()).ok, true);
      await log.close();
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  it("commits at most maxBatch records at a time", async () => {
    const t = await openTempAuditLog({ maxBatch: 8 });
    try {
      await Promise.all(Array.from({ length: 100 }, () => t.log.appendIntent(hostIntent())));
      assert.ok(t.log.stats.batches >= 13, `${t.log.stats.batches} commits for 100 records in batches of 8`);
      assert.equal((await t.log.verify()).ok, true);
    } finally {
      await t.cleanup();
    }
  });

  it("keeps one linear chain when two logs on two handles of one file append at once", async () => {
    const dir = await tempDir();
    const stores = await Promise.all([openStore({ url: dir.url() }), openStore({ url: dir.url() })]);
    try {
      const logs = await Promise.all(stores.map((store) => openAuditLog(store)));
      await Promise.all(
        logs.flatMap((log, n) => Array.from({ length: 200 }, (_, i) => withAudit(log, { intent: hostIntent({ runId: `log-${n}-${i}` }), effect: () => i }))),
      );
      assert.deepEqual(await storedSeqs(stores[0]), range(800));
      const report = await logs[0]!.verify();
      assert.equal(report.ok, true);
      assert.deepEqual(report.inFlight, []);
      const conflicts = logs.reduce((sum, log) => sum + log.stats.conflicts, 0);
      assert.ok(conflicts > 0, "the logs raced for the same seq and rechained");
      for (const log of logs) await log.close();
    } finally {
      for (const store of stores) await store.close();
      await dir.remove();
    }
  });

  it("keeps one linear chain when two processes append to one file at once", async () => {
    const dir = await tempDir();
    try {
      const url = dir.url();
      const init = await openStore({ url });
      await openAuditLog(init);
      await init.close();
      const children = [startChild({ mode: "append", url, calls: 300 }), startChild({ mode: "append", url, calls: 300 })];
      const exits = await Promise.all(children.map((child) => child.exited()));
      for (const exit of exits) assert.equal(exit.code, 0, exit.stderr);
      const store = await openStore({ url });
      try {
        const log = await openAuditLog(store);
        const report = await log.verify();
        assert.equal(report.ok, true);
        assert.equal(report.records, 1200);
        assert.deepEqual(report.inFlight, []);
        const stored = new Set(await storedSeqs(store));
        for (const child of children) for (const seq of child.report.committed) assert.ok(stored.has(seq), `seq ${seq} is stored`);
        const runs = (await store.execute("SELECT count(DISTINCT trace_id) AS n FROM audit_records")).rows[0]?.n;
        assert.equal(runs, 2, "both processes wrote");
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
