/**
 * The `conversation_compactions` table: each summary that stands in for a range of a
 * conversation's messages. The messages themselves are never deleted (conversation_messages
 * keeps them); undoing a compaction marks it undone and the model sees those messages again
 * from the next Step on. Ranges never overlap: a new compaction starts after the latest one,
 * undone or not, so what a person restored is not summarised away again.
 */
import { ConflictError, NotFoundError } from "../errors.js";
import type { IntentGuard } from "../audit/index.js";
import type { Migration, Row, Store } from "../store/index.js";

export const compactionMigrations: readonly Migration[] = [
  {
    room: "compaction",
    version: 1,
    name: "summaries that stand in for a conversation's earlier messages",
    statements: [
      `CREATE TABLE conversation_compactions (
        conversation_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        from_seq INTEGER NOT NULL,
        through_seq INTEGER NOT NULL,
        turns INTEGER NOT NULL,
        summary TEXT NOT NULL,
        run_id TEXT NOT NULL,
        step_id TEXT NOT NULL,
        model TEXT NOT NULL,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        undone_at INTEGER,
        undone_by TEXT,
        PRIMARY KEY (conversation_id, n)
      ) STRICT`,
    ],
  },
];

/** One compaction: which messages its summary replaces, who made it, and whether it was undone. */
export interface Compaction {
  conversationId: string;
  n: number;
  fromSeq: number;
  throughSeq: number;
  turns: number;
  summary: string;
  runId: string;
  stepId: string;
  model: string;
  /** Tokens of the messages replaced, and of the summary (o200k counts). */
  tokensBefore: number;
  tokensAfter: number;
  createdAt: number;
  undoneAt: number | null;
  undoneBy: string | null;
}

export type NewCompaction = Omit<Compaction, "n" | "createdAt" | "undoneAt" | "undoneBy">;

export class Compactions {
  readonly #store: Store;
  readonly #now: () => number;

  constructor(store: Store, options: { now: () => number }) {
    this.#store = store;
    this.#now = options.now;
  }

  /** Every compaction of conversation `id`, oldest first (undone ones too). */
  async list(id: string): Promise<Compaction[]> {
    const result = await this.#store.execute({ sql: "SELECT * FROM conversation_compactions WHERE conversation_id = ? ORDER BY n", args: [id] });
    return result.rows.map(toCompaction);
  }

  /**
   * Records a compaction and returns it with its number; `undefined` when a compaction made
   * meanwhile (another run of the conversation) already reaches into its range. Given `guard`
   * (the run's lease), fenced: a node another took the run from records nothing.
   */
  async add(compaction: NewCompaction, options: { guard?: IntentGuard } = {}): Promise<Compaction | undefined> {
    const now = this.#now();
    const c = compaction;
    const insert = {
      sql: `INSERT INTO conversation_compactions (conversation_id, n, from_seq, through_seq, turns, summary, run_id, step_id, model, tokens_before, tokens_after, created_at)
            SELECT ?, (SELECT coalesce(max(n), 0) + 1 FROM conversation_compactions WHERE conversation_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
            WHERE NOT EXISTS (SELECT 1 FROM conversation_compactions WHERE conversation_id = ? AND through_seq >= ?)`,
      args: [c.conversationId, c.conversationId, c.fromSeq, c.throughSeq, c.turns, c.summary, c.runId, c.stepId, c.model, c.tokensBefore, c.tokensAfter, now, c.conversationId, c.fromSeq],
    };
    let results;
    try {
      results = await this.#store.batch([...(options.guard === undefined ? [] : [options.guard.statement]), insert], { mode: "write" });
    } catch (error) {
      if (options.guard?.refused(error) !== true) throw error;
      throw new ConflictError("run_taken_over", `run ${c.runId} is driven by another node now (this node's lease ran out); it compacts there`);
    }
    if (results.at(-1)!.rowsAffected === 0) return undefined;
    return (await this.list(c.conversationId)).at(-1);
  }

  /** Undoes compaction `n` of conversation `id`: its messages are sent as they were from the next Step on. */
  async undo(id: string, n: number, options: { by: string }): Promise<Compaction> {
    const result = await this.#store.execute({
      sql: "UPDATE conversation_compactions SET undone_at = ?, undone_by = ? WHERE conversation_id = ? AND n = ? AND undone_at IS NULL",
      args: [this.#now(), options.by, id, n],
    });
    const compaction = (await this.list(id)).find((c) => c.n === n);
    if (!compaction) throw new NotFoundError(`conversation ${id} has no compaction ${n}`);
    if (result.rowsAffected === 0) throw new ConflictError("compaction_undone", `compaction ${n} of conversation ${id} was already undone (${new Date(compaction.undoneAt!).toISOString()}, by ${compaction.undoneBy})`);
    return compaction;
  }
}

function toCompaction(row: Row): Compaction {
  return {
    conversationId: String(row.conversation_id),
    n: Number(row.n),
    fromSeq: Number(row.from_seq),
    throughSeq: Number(row.through_seq),
    turns: Number(row.turns),
    summary: String(row.summary),
    runId: String(row.run_id),
    stepId: String(row.step_id),
    model: String(row.model),
    tokensBefore: Number(row.tokens_before),
    tokensAfter: Number(row.tokens_after),
    createdAt: Number(row.created_at),
    undoneAt: row.undone_at === null || row.undone_at === undefined ? null : Number(row.undone_at),
    undoneBy: row.undone_by === null || row.undone_by === undefined ? null : String(row.undone_by),
  };
}
