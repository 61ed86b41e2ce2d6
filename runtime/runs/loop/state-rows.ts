import { randomInt } from "node:crypto";
import { allRows, type Migration, type Statement, type Store } from "../../store/index.js";

/**
 * A run's loop state grows with its conversation (every tool result is in it) past what one
 * statement may move (`MAX_STATEMENT_BYTES`, a server's response cap). A state up to `CHUNK`
 * bytes stays inline in `run_loops.state`; a larger one is stored as UTF-8 chunks of at most
 * `CHUNK` bytes, one statement each, under a generation the row names: a write replaces the
 * generation in one transaction, so a reader never sees half of two states.
 */
export const CHUNK = 512 * 1024;

/** In the run-journal room (applied with it): issue 20, loop state in chunks. */
export const loopStateChunkMigrations: readonly Migration[] = [
  {
    room: "run-journal",
    version: 2,
    name: "loop states larger than one statement, in chunks (issue 20)",
    statements: [
      "ALTER TABLE run_loops ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0",
      "ALTER TABLE run_loops ADD COLUMN generation INTEGER NOT NULL DEFAULT 0",
      `CREATE TABLE run_loop_chunks (
        run_id TEXT NOT NULL,
        generation INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        part BLOB NOT NULL,
        PRIMARY KEY (run_id, generation, seq)
      ) STRICT`,
    ],
  },
  {
    room: "run-journal",
    version: 3,
    name: "conversation messages larger than one statement, in chunks (issue 20)",
    statements: [
      "ALTER TABLE conversation_messages ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0",
      `CREATE TABLE conversation_message_chunks (
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        part INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (conversation_id, seq, part)
      ) STRICT`,
    ],
  },
];

/** The header upsert's condition: none (undefined), or that no other node holds the run. */
const FENCE = "WHERE NOT EXISTS (SELECT 1 FROM runs WHERE id = excluded.run_id AND node IS NOT NULL AND node != ?)";

/**
 * Writes `text` as run `runId`'s state in one transaction; false when the fence (given `node`)
 * refused it: another node holds the run, and nothing was changed.
 */
export async function writeState(store: Store, runId: string, text: string, options: { now: number; node?: string | undefined }): Promise<boolean> {
  const bytes = Buffer.from(text, "utf8");
  const inline = bytes.byteLength <= CHUNK;
  const chunks = inline ? 0 : Math.ceil(bytes.byteLength / CHUNK);
  // A fresh generation per write: chunks of the state it replaces are dropped in the same batch.
  const generation = randomInt(1, 2 ** 47);
  const header: Statement = {
    sql: `INSERT INTO run_loops (run_id, state, updated_at, chunks, generation) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (run_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at, chunks = excluded.chunks, generation = excluded.generation
          ${options.node === undefined ? "" : FENCE}`,
    args: [runId, inline ? text : "", options.now, chunks, generation, ...(options.node === undefined ? [] : [options.node])],
  };
  const parts: Statement[] = [];
  for (let seq = 0; seq < chunks; seq++) {
    parts.push({
      // Only under the header this batch wrote (a fenced-off header leaves the stored state whole).
      sql: "INSERT INTO run_loop_chunks (run_id, generation, seq, part) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM run_loops WHERE run_id = ? AND generation = ?)",
      args: [runId, generation, seq, bytes.subarray(seq * CHUNK, (seq + 1) * CHUNK), runId, generation],
    });
  }
  const drop: Statement = { sql: "DELETE FROM run_loop_chunks WHERE run_id = ? AND generation != (SELECT generation FROM run_loops WHERE run_id = ?)", args: [runId, runId] };
  const results = await store.batch([header, ...parts, drop], { mode: "write" });
  return results[0]!.rowsAffected > 0;
}

/** Run `runId`'s state as text, or undefined when it has none. */
export async function readState(store: Store, runId: string): Promise<string | undefined> {
  // A state replaced between the header and its chunks is read again (its chunks are gone).
  for (let attempt = 0; ; attempt++) {
    const header = (await store.execute({ sql: "SELECT state, chunks, generation FROM run_loops WHERE run_id = ?", args: [runId] })).rows[0];
    if (header === undefined) return undefined;
    const chunks = Number(header.chunks ?? 0);
    if (chunks === 0) return String(header.state);
    const rows = await allRows(store, {
      page: (after, limit) => ({
        sql: "SELECT seq, part FROM run_loop_chunks WHERE run_id = ? AND generation = ? AND seq > ? ORDER BY seq LIMIT ?",
        args: [runId, Number(header.generation), after ?? -1, limit],
      }),
      key: (row) => row.seq as number,
      pageSize: 1,
    });
    if (rows.length === chunks) return Buffer.concat(rows.map((row) => row.part as Uint8Array)).toString("utf8");
    if (attempt >= 3) throw new Error(`run ${runId}: its loop state has ${rows.length} of ${chunks} chunks; the store was changed while it was read`);
  }
}

/** Whether run `runId` has loop state (it is driven by the model), without reading it. */
export async function hasState(store: Store, runId: string): Promise<boolean> {
  return (await store.execute({ sql: "SELECT 1 FROM run_loops WHERE run_id = ?", args: [runId] })).rows.length > 0;
}
