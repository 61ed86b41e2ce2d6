/**
 * A node that dies inside a ToolCall leaves intents without outcomes: the ToolCall's own and its
 * effect's. The node taking the run over closes them — the effect `interrupted`, the ToolCall
 * `abandoned`, naming the takeover — before it runs the ToolCall again under intents of its own,
 * so `audit verify` shows nothing in flight and still says what happened. Control: a node that
 * died after the ToolCall had ended leaves nothing to close, and nothing is written for it.
 * On a shared store file and, when sqld is here, on a libSQL server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AuditRecord } from "../../runtime/audit/index.js";
import type { Runtime } from "../../runtime/index.js";
import { HOUR, twoNodes, until, takeoverStores } from "./takeover-fixtures.js";

async function records(runtime: Runtime, runId: string): Promise<readonly AuditRecord[]> {
  return (await runtime.audit.query({ runId, limit: 1000 })).records;
}

for (const s of takeoverStores()) {
  describe(`intents a node left open when it died, on ${s.label}`, s.skip === undefined ? {} : { skip: s.skip }, () => {
    before(() => s.start());
    after(() => s.stop());

    const cases = [
      { label: "A dies after its write's intent, before any outcome: B closes both, naming the takeover, and verify is clean", inside: true },
      { label: "control: A dies after the ToolCall ended: nothing is closed, verify is clean", inside: false },
    ];
    for (const c of cases) {
      it(c.label, async () => {
        const { a, b, dispose } = await twoNodes(s.url, s.options());
        // Once the effect's intent (fenced) committed, or once the turn's results were stored.
        const stop = a.store!.stopAfter((sql) => sql.includes(c.inside ? "INSERT INTO run_fences" : "INSERT INTO run_loops"));
        try {
          const { run } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
          await stop.died;
          b.ahead(HOUR);
          if (c.inside) {
            await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "awaiting_approval", "B paused the run");
            await b.runtime.approvals.decide((await b.runtime.records.get(run.id))!.pending!.approvalId, { decision: "approve", by: "operator" });
          }
          await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
          assert.equal((await b.runtime.records.get(run.id))?.endReason, "completed");
          const report = await b.runtime.audit.verify();
          assert.equal(report.ok, true, JSON.stringify(report.issues));
          assert.deepEqual(report.inFlight.filter((intent) => intent.runId === run.id), [], "no intent of the run is left in flight");
          const all = await records(b.runtime, run.id);
          const closed = all.filter((r) => r.error?.code === "abandoned" || r.error?.code === "interrupted");
          if (!c.inside) {
            assert.deepEqual(closed, [], "nothing was left open, nothing is closed");
            return;
          }
          const intentOf = (r: AuditRecord) => all.find((i) => i.seq === r.intentSeq)!;
          const abandoned = closed.filter((r) => r.error?.code === "abandoned");
          assert.equal(abandoned.length, 1, "A's ToolCall intent is closed once");
          assert.equal(intentOf(abandoned[0]!).kind, "tool_call");
          assert.equal(intentOf(abandoned[0]!).tool, "files.write_file");
          assert.match(abandoned[0]!.error!.message, /taken over from node node_\S+ by node node_\S+ while this ToolCall was in flight/);
          const interrupted = closed.filter((r) => r.error?.code === "interrupted");
          assert.deepEqual(interrupted.map((r) => intentOf(r).kind), ["host_call"], "A's effect intent is closed as interrupted");
          // The ToolCall ran again on B under an intent of its own, which has its outcome.
          const toolCalls = all.filter((r) => r.kind === "tool_call" && r.status === "intent" && r.tool === "files.write_file");
          assert.equal(toolCalls.length, 2);
        } finally {
          stop.release();
          await dispose();
        }
      });
    }
  });
}
