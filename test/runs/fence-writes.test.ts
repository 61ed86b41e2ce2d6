/**
 * Fencing of a run's own records: once node B has taken a run over (A's lease ran out), node A
 * writes none of the run's end, the ToolCall it waits on, its result or its turn in its
 * conversation; the run goes on at B as B left it. Beside each, a control where A still holds the run and the write is made.
 * Each case runs on a shared store file and, when sqld is here, on a libSQL server.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { leaseGuard } from "../../runtime/runs/fence.js";
import { LoopStates } from "../../runtime/runs/loop/state.js";
import { openStore, type Store } from "../../runtime/store/index.js";
import { defineTestAgent, tempDir } from "../helpers/runtime.js";
import { nodeOn, sharedStore, storeAccess, type SharedStore } from "../helpers/shared-store.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";
import { needsSqld } from "../helpers/sqld.js";

const HOUR = 3_600_000;
const sqld = needsSqld();

/** A write node A makes for its run, and whether it was made (as the store shows). */
const WRITES: Array<{ what: string; write: (a: Runtime, store: Store, runId: string) => Promise<unknown>; made: (store: Store, runId: string) => Promise<boolean> }> = [
  {
    what: "the run's end",
    write: (a, _store, runId) => a.records.end(runId, { by: "a" }, Date.now(), "completed", "ended by A", a.node),
    made: async (store, runId) => (await row(store, runId)).status === "ended",
  },
  {
    what: "the ToolCall the run waits on",
    write: (a, _store, runId) => a.records.setPending(runId, { tool: "files.write_file", input: {}, stepId: "step_1", approvalId: "apr_a" }, a.node),
    made: async (store, runId) => String((await row(store, runId)).pending).includes("apr_a"),
  },
  {
    what: "the run's result",
    write: (a, store, runId) => new LoopStates(store, { now: () => Date.now(), node: a.node }).setResult(runId, "A's answer"),
    made: async (store, runId) => (await row(store, runId)).result === "A's answer",
  },
  {
    what: "the run's turn in its conversation",
    write: async (a, _store, runId) => {
      const conversation = await a.conversations.create("direct");
      turns.set(runId, conversation.id);
      await a.conversations
        .append(conversation.id, [{ role: "user", content: [{ type: "text", text: "A's turn" }] }], { runId, guard: leaseGuard(runId, a.node, Date.now) })
        .catch((error: { code?: string }) => assert.equal(error.code, "run_taken_over", String(error)));
    },
    made: async (store, runId) => (await store.execute({ sql: "SELECT COUNT(*) AS n FROM conversation_messages WHERE conversation_id = ?", args: [turns.get(runId)!] })).rows[0]!.n === 1,
  },
];

async function endedEvents(store: Store, runId: string): Promise<readonly unknown[]> {
  return (await store.execute({ sql: "SELECT seq FROM run_events WHERE run_id = ? AND type = 'run-ended'", args: [runId] })).rows;
}

/** The conversation each run's turn went to (the conversation rows). */
const turns = new Map<string, string>();

async function row(store: Store, runId: string): Promise<Record<string, unknown>> {
  return (await store.execute({ sql: "SELECT status, node, pending, result FROM runs WHERE id = ?", args: [runId] })).rows[0] as Record<string, unknown>;
}

for (const where of [{ label: "a shared file" }, { label: "sqld", ...sqld }]) {
  describe(`a run's records are fenced on ${where.label}`, where.skip === undefined ? {} : { skip: where.skip }, () => {
    let shared: SharedStore | undefined;
    let dataDir: string;
    let a: Runtime;
    let b: Runtime;
    let store: Store;

    before(async () => {
      dataDir = await tempDir("clawhive-fence-writes-");
      await writeTestSecretKey(dataDir);
      shared = await sharedStore(dataDir, where.label === "sqld");
      const make = async (name: string) => {
        const runtime = await nodeOn(shared!, dataDir, name);
        await defineTestAgent(runtime, "direct", { plugins: ["probe"] });
        return runtime;
      };
      a = await make("a");
      b = await make("b");
      store = await openStore(storeAccess(shared));
    });
    after(async () => {
      await store?.close();
      await a?.close();
      await b?.close();
      await shared?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    /** A run of A's, taken over by B (its clock an hour on: A's lease looks run out) or not. */
    async function runOfA(takenByB: boolean): Promise<string> {
      const run = await a.startRun({ agent: "direct" });
      const now = Date.now();
      assert.equal(await a.records.claim(run.id, a.node, { now, until: now + 60_000 }), true, "A holds the run");
      if (takenByB) assert.equal(await b.records.claim(run.id, b.node, { now: now + HOUR, until: now + 2 * HOUR }), true, "B took it over");
      return run.id;
    }

    for (const { what, write, made } of WRITES) {
      it(`${what}: not written by A once B took the run over; B's row stands`, async () => {
        const runId = await runOfA(true);
        await write(a, store, runId);
        const after = await row(store, runId);
        assert.equal(await made(store, runId), false, JSON.stringify(after));
        assert.equal(after.node, b.node, "B still holds the run");
        assert.equal(after.status, "active");
      });
      it(`control: ${what}: written by A while A holds the run`, async () => {
        const runId = await runOfA(false);
        await write(a, store, runId);
        assert.equal(await made(store, runId), true, JSON.stringify(await row(store, runId)));
      });
    }

    it("a run ended on A after B took it over is not ended there: it goes on at B", async () => {
      const run = await a.startRun({ agent: "direct" });
      const now = Date.now();
      assert.equal(await a.records.claim(run.id, a.node, { now, until: now + 60_000 }), true);
      assert.equal(await b.records.claim(run.id, b.node, { now: now + HOUR, until: now + 2 * HOUR }), true);
      await run.end();
      const after = await row(store, run.id);
      assert.equal(after.status, "active", JSON.stringify(after));
      assert.equal(after.node, b.node);
      assert.deepEqual(await endedEvents(store, run.id), [], "no run-ended event: a stream of the run must not see it end");
    });

    it("control: a run ended on A while A holds it is ended", async () => {
      const run = await a.startRun({ agent: "direct" });
      const now = Date.now();
      assert.equal(await a.records.claim(run.id, a.node, { now, until: now + 60_000 }), true);
      await run.end();
      const after = await row(store, run.id);
      assert.equal(after.status, "ended", JSON.stringify(after));
      assert.equal(after.node, null);
      assert.equal((await endedEvents(store, run.id)).length, 1);
    });
  });
}
