/**
 * A model-driven run that paused for a person and was approved replays its ToolCall: that replay
 * is journaled like any ToolCall's start. A node taking the run over after the replay had begun
 * its effect asks a person before making it again (it sees the effect since the replay's start);
 * control: a node taking over after the replay's results were journaled just goes on.
 * On a shared store file and, when sqld is here, on a libSQL server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { defineTestAgent } from "../helpers/runtime.js";
import { HOUR, tickUntil, twoNodes, until, writeIntents, takeoverStores } from "./takeover-fixtures.js";

for (const s of takeoverStores()) {
  describe(`takeover of an approved replay, on ${s.label}`, s.skip === undefined ? {} : { skip: s.skip }, () => {
    before(() => s.start());
    after(() => s.stop());

    const cases = [
      { label: "A stops after the replay's write, before its results are journaled: B asks a person, the write is not made twice", cut: true },
      { label: "control: A journals the replay's results, then stops in its next model call: B goes on from them", cut: false },
    ];
    for (const c of cases) {
      it(c.label, async () => {
        const { a, b, work, dispose } = await twoNodes(s.url, s.options());
        // Its writes wait for a person (no lower_risk for files.write_file).
        for (const node of [a, b]) await defineTestAgent(node.runtime, "asker", { plugins: ["files"], mounts: [{ guest: "/w", host: work, mode: "rw" }] });
        let release: (() => void) | undefined;
        try {
          const { run } = await a.runtime.submitRun({ agent: "asker", task: "write a" });
          await until(a.runtime, async () => (await a.runtime.records.get(run.id))?.status === "awaiting_approval", "A paused for approval");
          let stopped: () => void = () => undefined;
          const stoppedAt = new Promise<void>((resolve) => (stopped = resolve));
          if (c.cut) {
            // A "dies" at the first loop-state write after the replay's fenced intent: the write
            // and its outcome are on record, the turn's results are not.
            let fenced = false;
            a.store!.before(
              (sql) => (sql.includes("INSERT INTO run_fences") ? ((fenced = true), false) : fenced && sql.includes("INSERT INTO run_loops")),
              () => {
                stopped();
                return new Promise<void>((_, reject) => (release = () => reject(new Error("node A stopped"))));
              },
            );
          }
          const pending = (await a.runtime.records.get(run.id))!.pending!;
          await a.runtime.approvals.decide(pending.approvalId, { decision: "approve", by: "operator" });
          await tickUntil(a.runtime, c.cut ? stoppedAt : a.asked(2), c.cut ? "A stopped after the replay's write" : "A asked its model again");
          assert.equal(await writeIntents(a.runtime, run.id, "a.txt"), 1, "the replay made its write");
          b.ahead(HOUR);
          if (c.cut) {
            await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "awaiting_approval", "B paused the run");
            const asked = (await b.runtime.approvals.get((await b.runtime.records.get(run.id))!.pending!.approvalId))!;
            assert.match(asked.reason, /taken over: .* after it had begun 1 effect\(s\): fs\.write .*a\.txt.*finished/);
            await b.runtime.approvals.decide(asked.id, { decision: "deny", by: "operator" });
          }
          await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
          const ended = (await b.runtime.records.get(run.id))!;
          assert.equal(ended.endReason, "completed", ended.result ?? "");
          assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), 1, "the write was made once");
        } finally {
          release?.();
          await dispose();
        }
      });
    }
  });
}
