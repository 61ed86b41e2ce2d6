/**
 * Durable runs: a node that stops driving a run (its lease runs out) hands it to another node,
 * which continues from the Step journal: finished ToolCalls are replayed from the journal, never
 * run again; a ToolCall cut off after it had begun an effect pauses for a person instead.
 * Each case runs on a shared store file and, when sqld is here, on a libSQL server.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HOUR, respond, twoNodes, until, writeIntents, takeoverStores, writeUse, type Node } from "./takeover-fixtures.js";
import { LoopStates } from "../../runtime/runs/loop/state.js";
import type { Store } from "../../runtime/store/index.js";

const stores = takeoverStores();

for (const s of stores) {
  describe(`takeover on ${s.label}`, s.skip === undefined ? {} : { skip: s.skip }, () => {
    before(async () => {
      await s.start();
    });
    after(async () => {
      await s.stop();
    });
    const nodes = () => twoNodes(s.url, s.options());

    it("continues a run whose node stopped between Steps: the finished write is replayed from the journal, not made again; the old node makes no further effect", async () => {
      const { a, b, work, dispose } = await nodes();
      try {
        const { run } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
        await a.asked(2); // the write is done; A's second model call hangs
        b.ahead(HOUR);
        await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
        const record = (await b.runtime.records.get(run.id))!;
        assert.equal(record.endReason, "completed");
        assert.equal(record.result, "done after the journal's results");
        assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), 1, "the write happened once");
        assert.equal(await readFile(join(work, "a.txt"), "utf8"), "a.txt");
        // A wakes up and asks for another write: the run is no longer its own.
        a.release(respond([writeUse("b.txt")]));
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(existsSync(join(work, "b.txt")), false, "the old node made no effect after the takeover");
        assert.equal(await writeIntents(b.runtime, run.id, "b.txt"), 0);
      } finally {
        await dispose();
      }
    });

    it("ends failed a run its node left with nothing to continue from (no plan, no loop state); control: a model-driven run cut off beside it is continued", async () => {
      const { a, b, dispose } = await nodes();
      try {
        // As a node leaves a run it died starting (the record written, not yet its loop state),
        // or a run only its node's caller drove (an MCP session): nothing here can drive it.
        const bare = await a.runtime.startRun({ agent: "writer" });
        const { run: waiting } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
        await a.asked(2);
        b.ahead(HOUR);
        await until(b.runtime, async () => (await b.runtime.records.get(bare.id))?.status === "ended", "B ended the bare run");
        const ended = (await b.runtime.records.get(bare.id))!;
        assert.equal(ended.endReason, "failed");
        assert.match(ended.result ?? "", /node_stopped/);
        await until(b.runtime, async () => (await b.runtime.records.get(waiting.id))?.status === "ended", "B continued the model-driven run");
        assert.equal((await b.runtime.records.get(waiting.id))?.endReason, "completed");
      } finally {
        await dispose();
      }
    });

    const cut: { label: string; effectBefore: boolean }[] = [
      { label: "after it had begun its write: the run pauses for a person, the intent shown, and nothing is made again", effectBefore: true },
      { label: "before it had begun any effect (control): the ToolCall simply runs", effectBefore: false },
    ];
    for (const c of cut) {
      it(`continues a run whose node stopped inside a ToolCall ${c.label}`, async () => {
        const { a, b, dispose } = await nodes();
        try {
          const { run } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
          await a.asked(2);
          // As A's node would have left it had it died inside the write: the journal says the
          // ToolCall started (at `since`) and holds no result for it.
          const since = c.effectBefore ? 0 : Date.now() + 1;
          await cutInsideToolCall(a.runtime.store, run.id, since);
          b.ahead(HOUR);
          // Two ticks at once (the timer's and a caller's) find the same orphan: it is opened
          // and continued once, never by two Run objects (the later one would drive from the
          // state the earlier had already moved past, and make the write again).
          await Promise.all([b.runtime.driverTick(), b.runtime.driverTick(), b.runtime.driverTick()]);
          if (c.effectBefore) {
            await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "awaiting_approval", "B paused the run");
            const pending = (await b.runtime.records.get(run.id))!.pending!;
            const approval = (await b.runtime.approvals.get(pending.approvalId))!;
            assert.match(approval.reason, /taken over: its previous node \(node_.*\) stopped inside this ToolCall after it had begun 1 effect\(s\): fs\.write .*a\.txt.*finished/);
            assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), 1);
            await b.runtime.approvals.decide(pending.approvalId, { decision: "deny", by: "operator" });
          }
          await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
          assert.equal((await b.runtime.records.get(run.id))?.endReason, "completed");
          assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), c.effectBefore ? 1 : 2, c.effectBefore ? "never made twice" : "no effect had begun: it ran again");
        } finally {
          await dispose();
        }
      });
    }

    it("continues a run whose conversation is larger than one statement may move (> 1 MiB): its state, in chunks, is read back whole", async () => {
      const { a, b, dispose } = await nodes();
      try {
        const { run } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
        await a.asked(2);
        // Earlier turns of ~0.6 MB each (multi-byte text): the state is ~2.4 MB, stored in chunks.
        const states = new LoopStates(a.runtime.store, { now: () => Date.now() });
        const state = (await states.get(run.id))!;
        const pad = (i: number) => `turn ${i} ${"é🦀".repeat(100_000)}`;
        state.messages.splice(1, 0, ...[0, 1, 2, 3].map((i) => ({ role: i % 2 === 0 ? ("assistant" as const) : ("user" as const), content: [{ type: "text" as const, text: pad(i) }] })));
        await states.put(run.id, state);
        const chunks = await a.runtime.store.execute({ sql: "SELECT count(*) AS n FROM run_loop_chunks WHERE run_id = ?", args: [run.id] });
        assert.ok(Number(chunks.rows[0]!.n) > 2, "the state is stored in chunks");
        b.ahead(HOUR);
        await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
        const record = (await b.runtime.records.get(run.id))!;
        assert.equal(record.endReason, "completed", record.result ?? "");
        assert.equal(record.result, "done after the journal's results");
        // B read the whole state back (the model is sent what fits its context budget) and
        // stored it, with its own turn, as the run ended.
        const final = JSON.stringify((await new LoopStates(b.runtime.store, { now: () => Date.now() }).get(run.id))!.messages);
        for (const i of [0, 1, 2, 3]) assert.ok(final.includes(JSON.stringify(pad(i))), `turn ${i} came back whole`);
        assert.ok(final.includes("done after the journal's results"), "B's answer joined the state");
        assert.ok(JSON.stringify(b.requests[0]!.messages).includes(JSON.stringify(pad(3))), "B's prompt carried the latest turn whole");
        if (record.conversationId !== null) {
          const history = JSON.stringify(await b.runtime.conversations.messages(record.conversationId));
          for (const i of [0, 1, 2, 3]) assert.ok(history.includes(JSON.stringify(pad(i))), `turn ${i} joined the conversation whole`);
        }
        assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), 1, "the finished write is not made again");
      } finally {
        await dispose();
      }
    });

    const modelCut: { label: string; cut: (a: Node, runId: string) => Promise<void>; code: string; step: string; result: string; writes: number }[] = [
      {
        label: "while the prompt was out (no outcome on record): recorded as interrupted, then the model is asked again",
        cut: async () => undefined, // A's second model call hangs: the journal holds its intent, the audit no outcome
        code: "interrupted",
        step: "step_2",
        result: "done after the journal's results",
        writes: 1,
      },
      {
        label: "after the model had answered, before the answer was journaled: recorded as answer_lost, then asked again",
        cut: (a, runId) => cutInsideModelCall(a.runtime.store, runId),
        code: "answer_lost",
        step: "step_1",
        result: "done without results",
        writes: 1,
      },
    ];
    for (const c of modelCut) {
      it(`continues a run whose node stopped inside a model call ${c.label}`, async () => {
        const { a, b, dispose } = await nodes();
        try {
          const { run } = await a.runtime.submitRun({ agent: "writer", task: "write a" });
          await a.asked(2);
          await c.cut(a, run.id);
          b.ahead(HOUR);
          await until(b.runtime, async () => (await b.runtime.records.get(run.id))?.status === "ended", "B ended the run");
          const record = (await b.runtime.records.get(run.id))!;
          assert.equal(record.endReason, "completed");
          assert.equal(record.result, c.result);
          assert.equal(b.requests.length, 1, "B asked the model once");
          const calls = (await b.runtime.audit.query({ runId: run.id, kind: "model_call", limit: 100 })).records;
          const cutOff = calls.filter((r) => r.stepId === c.step && r.status === "error" && r.error?.code === c.code);
          assert.equal(cutOff.length, 1, `the cut-off call is on record once: ${JSON.stringify(calls.map((r) => [r.seq, r.stepId, r.status, r.error?.code]))}`);
          const asked = calls.filter((r) => r.status === "ok" && r.seq > cutOff[0]!.seq);
          assert.equal(asked.length, 1, "B's call is recorded after the record of the cut-off one");
          assert.equal(await writeIntents(b.runtime, run.id, "a.txt"), c.writes, "the finished write is not made again");
        } finally {
          await dispose();
        }
      });
    }
  });
}

/** Rewrites run `runId`'s loop state as if its node stopped right after its first model call answered. */
async function cutInsideModelCall(store: Store, runId: string): Promise<void> {
  const states = new LoopStates(store, { now: () => Date.now() });
  const state = (await states.get(runId))!;
  state.messages = state.messages.slice(0, 1);
  state.steps = 1;
  state.rounds = 0;
  state.calls = {};
  state.waiting = null;
  state.modelCall = { stepId: "step_1", since: 0, node: "node_elsewhere_1_00000000" };
  await states.put(runId, state);
}

/** Rewrites run `runId`'s loop state as if its node stopped inside the first ToolCall of its turn. */
async function cutInsideToolCall(store: Store, runId: string, since: number): Promise<void> {
  const states = new LoopStates(store, { now: () => Date.now() });
  const state = (await states.get(runId))!;
  const results = state.messages.pop()!;
  assert.equal(results.content[0]?.type, "tool_result");
  const turn = state.messages.at(-1)!;
  state.waiting = { stepId: `step_${state.steps - 1}`, context: "", uses: turn.content.filter((b) => b.type === "tool_use"), index: 0, results: [], since, node: "node_elsewhere_1_00000000" };
  state.steps -= 1;
  state.modelCall = null;
  await states.put(runId, state);
}
