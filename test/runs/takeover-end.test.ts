/**
 * A takeover of a model-driven run whose node stopped while ending it. The model answered (no
 * ToolCall), the node journaled that end in the run's loop state, then stopped before the run
 * was recorded ended: the node taking the run over finishes that end — the answer is the
 * result, the turn joins the conversation once — and never asks the model again (asked after
 * its own answer a model may do the task again, and its effects would happen twice). Node A is
 * stopped at an exact statement (a hook on its store: B takes the run over right there, then
 * A's statement and every later one fails, as a dead node's would); beside each stop point, a
 * control where A stops before the end was journaled and B asks the model, as it must.
 * Each case runs on a shared store file and, when sqld is here, on a libSQL server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LoopStates } from "../../runtime/runs/loop/state.js";
import { HOUR, respond, twoNodes, until, writeIntents, takeoverStores, type Node } from "./takeover-fixtures.js";

const stores = takeoverStores();

/** Where A stops, what B's model is asked, and the run's result B records. */
const STOPS: Array<{ label: string; at: RegExp; asked: number; result: string }> = [
  {
    label: "control: before its end was journaled (its model call is still the journal's last entry): B asks the model again",
    at: /^\s*INSERT INTO run_loops/,
    asked: 1,
    result: "done after the journal's results",
  },
  { label: "after its end was journaled, before the run's result was written", at: /^\s*UPDATE runs SET result/, asked: 0, result: "done by A" },
  { label: "after the turn joined the conversation, before the run was recorded ended", at: /^\s*UPDATE runs SET status = 'ended'/, asked: 0, result: "done by A" },
];

for (const s of stores) {
  describe(`takeover of a run its node stopped while ending, on ${s.label}`, s.skip === undefined ? {} : { skip: s.skip }, () => {
    before(async () => {
      await s.start();
    });
    after(async () => {
      await s.stop();
    });

    for (const stop of STOPS) {
      it(`A stops ${stop.label}`, async () => {
        const { a, b, dispose } = await twoNodes(s.url, s.options());
        try {
          const { run } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
          await a.asked(2); // the write is made; A's second model call waits for its answer
          stopAt(a, stop.at, async () => {
            b.ahead(HOUR);
            await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
          });
          a.release(respond([{ type: "text", text: "done by A" }]));
          await until(b.runtime, async () => a.store!.failed > 0, "A stopped");
          assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), 1, "the write happened once");
          assert.equal(b.requests.length, stop.asked, "how often B asked the model");
          const record = (await b.runtime.records.get(run.id))!;
          assert.equal(record.status, "ended");
          assert.equal(record.endReason, "completed", record.result ?? "");
          assert.equal(record.result, stop.result);
          const turns = (await b.runtime.conversations.messages(record.conversationId!)).filter((m) => m.runId === run.id);
          assert.deepEqual(turns.map((m) => m.role), ["user", "assistant", "user", "assistant"], "the run's turn is in its conversation once");
          if (stop.asked === 0) {
            const state = (await new LoopStates(b.runtime.store, { now: () => Date.now() }).get(run.id))!;
            assert.equal(state.finished?.result, "done by A", "A's end is what the run's state journals");
          }
        } finally {
          a.store!.clear();
          await dispose();
        }
      });
    }

    it("a state written before ends were journaled (the model's answer last, no end in it) is ended with that answer, not asked again", async () => {
      const { a, b, dispose } = await twoNodes(s.url, s.options());
      try {
        const { run } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
        await a.asked(2);
        const states = new LoopStates(a.runtime.store, { now: () => Date.now() });
        const state = (await states.get(run.id))!;
        state.messages.push({ role: "assistant", content: [{ type: "text", text: "answered earlier" }] });
        state.modelCall = null;
        delete state.finished;
        await states.put(run.id, state);
        b.ahead(HOUR);
        await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
        assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), 1, "the write happened once");
        assert.equal(b.requests.length, 0, "B did not ask the model after its answer");
        assert.equal((await b.runtime.records.get(run.id))!.result, "answered earlier");
      } finally {
        await dispose();
      }
    });
  });
}

/**
 * Before A's first statement that `at` picks: `meanwhile` (B takes the run over), then that
 * statement and every later one of A fails, as if A's process had died right there.
 */
function stopAt(a: Node, at: RegExp, meanwhile: () => Promise<void>): void {
  const store = a.store!;
  store.before(
    (sql) => at.test(sql),
    async () => {
      await meanwhile();
      store.fail({ kind: "busy" });
      throw new Error("node A stopped here (injected)");
    },
  );
}
