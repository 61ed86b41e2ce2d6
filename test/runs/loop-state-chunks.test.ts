/**
 * A model-driven run's loop state grows with its conversation past what one statement may move
 * (a libSQL server caps a response): larger states are stored in chunks, read back whole, and a
 * fenced write (another node holds the run) leaves the stored state whole; so are conversation
 * messages larger than one chunk. On the embedded file,
 * `:memory:` and, when it is here, a libSQL server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runJournalMigrations } from "../../runtime/runs/journal.js";
import { runMigrations, RunRecords } from "../../runtime/runs/records.js";
import { initialLoopState, LoopStates, type LoopState } from "../../runtime/runs/loop/state.js";
import { CHUNK } from "../../runtime/runs/loop/state-rows.js";
import { Conversations } from "../../runtime/runs/conversations.js";
import type { Message } from "../../runtime/llm/index.js";
import { applyMigrations, MAX_STATEMENT_BYTES, openStore, type Store } from "../../runtime/store/index.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";
import { openTempStore } from "../store/temp-store.js";

const sqld = needsSqld();
let server: SqldServer | undefined;

const drivers: Array<{ label: string; skip?: string; open: () => Promise<{ store: Store; cleanup: () => Promise<void> }> }> = [
  { label: "embedded file", open: () => openTempStore() },
  { label: "embedded :memory:", open: async () => { const store = await openStore({ url: ":memory:" }); return { store, cleanup: () => store.close() }; } },
  {
    label: "sqld",
    ...sqld,
    open: async () => {
      server ??= await startSqld({ auth: true });
      const store = await openStore({ url: server.url, authToken: server.authToken! });
      return { store, cleanup: () => store.close() };
    },
  },
];
after(async () => server?.stop());

/** A state whose JSON is about `bytes` long, with multi-byte text (chunks cut inside characters). */
function stateOf(bytes: number): LoopState {
  const state = initialLoopState("task", null);
  // "é" is two bytes in UTF-8, "🦀" four: a cut can fall inside either.
  const unit = "é🦀abc";
  const filler = unit.repeat(Math.max(0, Math.ceil((bytes - 200) / Buffer.byteLength(unit))));
  state.messages.push({ role: "assistant", content: [{ type: "text", text: filler }] });
  return state;
}

for (const driver of drivers) {
  describe(`loop state in chunks on ${driver.label}`, driver.skip === undefined ? {} : { skip: driver.skip }, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await driver.open());
      await applyMigrations(store, runMigrations);
      await applyMigrations(store, runJournalMigrations);
    });
    after(async () => cleanup());

    const chunkRows = async (runId: string) => Number((await store.execute({ sql: "SELECT count(*) AS n FROM run_loop_chunks WHERE run_id = ?", args: [runId] })).rows[0]!.n);
    const run = async (id: string, node: string) => {
      await new RunRecords(store).create({ id, traceId: "t", taskId: "k", parentRunId: null, agent: "a", plugins: null, task: "task", taskGrants: null, createdAt: 0, node, leaseUntil: Date.now() + 60_000 });
    };

    const sizes = [
      { label: "small (inline)", bytes: 1_000, chunked: false },
      { label: "just under a chunk (inline)", bytes: CHUNK - 64, chunked: false },
      { label: "just over a chunk", bytes: CHUNK + 64, chunked: true },
      { label: "over one statement's bound (2.5 MiB)", bytes: MAX_STATEMENT_BYTES * 2.5, chunked: true },
    ];
    for (const size of sizes) {
      it(`round-trips a ${size.label} state, and a smaller one written over it leaves no chunks behind`, async () => {
        const id = `run_${sizes.indexOf(size)}`;
        await run(id, "node_a");
        const states = new LoopStates(store, { now: () => 1, node: "node_a" });
        const state = stateOf(size.bytes);
        await states.put(id, state);
        assert.deepEqual(await states.get(id), state);
        assert.equal(await states.has(id), true);
        assert.equal((await chunkRows(id)) > 0, size.chunked);
        const small = stateOf(100);
        await states.put(id, small);
        assert.deepEqual(await states.get(id), small);
        assert.equal(await chunkRows(id), 0);
      });
    }

    for (const holder of [{ label: "this node holds the run (control): written", node: "node_a", written: true }, { label: "another node holds it: refused, the stored state stays whole", node: "node_b", written: false }]) {
      it(`a chunked state written over a chunked one when ${holder.label}`, async () => {
        const id = `run_fenced_${holder.node}`;
        await run(id, "node_a");
        const states = new LoopStates(store, { now: () => 1, node: "node_a" });
        const first = stateOf(MAX_STATEMENT_BYTES * 1.5);
        await states.put(id, first);
        await store.execute({ sql: "UPDATE runs SET node = ? WHERE id = ?", args: [holder.node, id] });
        const second = stateOf(MAX_STATEMENT_BYTES * 2);
        second.steps = 7;
        const put = states.put(id, second);
        if (holder.written) await put;
        else await assert.rejects(put, { code: "run_taken_over" });
        assert.deepEqual(await states.get(id), holder.written ? second : first);
        assert.equal(await chunkRows(id), Math.ceil(Buffer.byteLength(JSON.stringify(holder.written ? second : first)) / CHUNK));
      });
    }

    it("a conversation keeps messages of every size whole: inline, and over one statement's bound in parts", async () => {
      const conversations = new Conversations(store, { now: () => 1 });
      const conversation = await conversations.create("a");
      const text = (bytes: number) => stateOf(bytes).messages[1]!.content;
      const turn: Message[] = [
        { role: "user", content: [{ type: "text", text: "small" }] },
        { role: "assistant", content: text(MAX_STATEMENT_BYTES * 2.5) },
        { role: "user", content: text(CHUNK + 64) },
        { role: "assistant", content: [{ type: "text", text: "after" }] },
      ];
      await conversations.append(conversation.id, turn, { runId: "run_c1" });
      await conversations.append(conversation.id, turn.slice(0, 2), { runId: "run_c2" });
      const read = await conversations.messages(conversation.id);
      assert.deepEqual(read.map((m) => ({ role: m.role, content: m.content })), [...turn, ...turn.slice(0, 2)]);
      assert.deepEqual(read.map((m) => m.seq), [1, 2, 3, 4, 5, 6]);
      const parts = await store.execute({ sql: "SELECT count(*) AS n FROM conversation_message_chunks WHERE conversation_id = ?", args: [conversation.id] });
      assert.ok(Number(parts.rows[0]!.n) > 2, "the large messages are stored in parts");
    });

    it("has no state for a run the model does not drive", async () => {
      const states = new LoopStates(store, { now: () => 1 });
      assert.equal(await states.get("run_none"), undefined);
      assert.equal(await states.has("run_none"), false);
    });
  });
}
