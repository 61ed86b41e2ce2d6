import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openAuditLog } from "../../runtime/audit/index.js";
import { openStore } from "../../runtime/store/index.js";
import { tempDir } from "../store/temp-store.js";
import { startChild } from "./child-process.js";

describe("a runtime process killed mid-load (SIGKILL)", () => {
  it("leaves a chain that verifies, holding every record it reported committed, with open intents reported in flight", async (t) => {
    const dir = await tempDir();
    try {
      const url = dir.url();
      const child = startChild({ mode: "load", url, concurrency: 16 });
      await child.reported(1500);
      child.process.kill("SIGKILL");
      const exit = await child.exited();
      assert.equal(exit.signal, "SIGKILL", exit.stderr);

      const store = await openStore({ url });
      try {
        const log = await openAuditLog(store);
        const report = await log.verify();
        assert.deepEqual(report.issues, [], "no broken link, no altered record");
        assert.equal(report.ok, true);
        const stored = new Set((await store.execute("SELECT seq FROM audit_records")).rows.map((row) => Number(row.seq)));
        const lost = child.report.committed.filter((seq) => !stored.has(seq));
        assert.deepEqual(lost, [], "every record reported committed survived the kill");
        assert.ok(report.records >= child.report.committed.length);
        const closed = new Set(child.report.closedIntents);
        for (const open of report.inFlight) {
          assert.ok(!closed.has(open.seq), `intent ${open.seq} had a committed outcome, yet is reported in flight`);
        }
        const intents = (await log.query({ status: "intent", limit: 1000, order: "desc" })).records;
        assert.ok(report.inFlight.every((open) => intents.some((r) => r.seq === open.seq)), "in-flight entries are intents");
        t.diagnostic(`${report.records} records stored, ${child.report.committed.length} reported committed, ${report.inFlight.length} in flight`);
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
