import type { AuditLog, AuditRecord } from "../audit/index.js";
import type { Migration, Statement, Store } from "../store/index.js";
import { runFenceMigrations } from "./fence.js";
import { loopStateChunkMigrations } from "./loop/state-rows.js";
import { SUB_AGENT_TOOL_PREFIX } from "./sub-agent-tools.js";

/**
 * Its own migration room, so its numbering never meets the runs room's: one row per run saying
 * which ToolCall (or model call) the run's node started last and when. Written before the work
 * starts, so a node taking a run over knows what may have been under way when its node stopped.
 */
export const runJournalMigrations: readonly Migration[] = [
  {
    room: "run-journal",
    version: 1,
    name: "the work each run's node started last (issue 20: durable runs)",
    statements: [
      `CREATE TABLE run_journal (
        run_id TEXT PRIMARY KEY,
        position TEXT NOT NULL,
        since INTEGER NOT NULL,
        node TEXT NOT NULL
      ) STRICT`,
    ],
  },
  // Applied with the journal's: the fence table of every effect's intent (see fence.ts), and
  // loop states in chunks (see loop/state-rows.ts).
  ...runFenceMigrations,
  ...loopStateChunkMigrations,
];

/** Where a run stood: `position` names the work (`plan:3`, `step_4:1`, `model:step_5`). */
export interface JournalEntry {
  readonly position: string;
  readonly since: number;
  readonly node: string;
}

/**
 * The Step journal's in-flight half (the completed half is the run's own progress: a plan's
 * outcomes, the model loop's state): before a ToolCall or a model call starts, its position is
 * written here; the progress write after it moves the run past that position. A run whose
 * journal names the position it is about to resume at was cut off inside that work.
 */
export class RunJournal {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async mark(runId: string, entry: JournalEntry): Promise<void> {
    // A batch, so that marks of runs in flight together share a commit (GroupedBatches).
    await this.#store.batch([journalMark(runId, entry)]);
  }

  async get(runId: string): Promise<JournalEntry | undefined> {
    const result = await this.#store.execute({ sql: "SELECT position, since, node FROM run_journal WHERE run_id = ?", args: [runId] });
    const row = result.rows[0];
    return row === undefined ? undefined : { position: String(row.position), since: Number(row.since), node: String(row.node) };
  }

  async clear(runId: string): Promise<void> {
    await this.#store.execute({ sql: "DELETE FROM run_journal WHERE run_id = ?", args: [runId] });
  }
}

/**
 * The statement of a journal mark, for a caller that commits it with other writes: a new run's
 * row and its first ToolCall's mark are one transaction (RunRecords.create).
 */
export function journalMark(runId: string, entry: JournalEntry): Statement {
  return {
    sql: `INSERT INTO run_journal (run_id, position, since, node) VALUES (?, ?, ?, ?)
          ON CONFLICT (run_id) DO UPDATE SET position = excluded.position, since = excluded.since, node = excluded.node`,
    args: [runId, entry.position, entry.since, entry.node],
  };
}

/**
 * The effect intents run `runId` wrote since `since`: effects of the ToolCall its node was
 * inside when it stopped — its host calls, and the sub-agent runs it started (a child's own
 * effects are recorded under the child, so the parent's spawn intent is what says one was
 * started: started again, the child's task would be done twice). Paged (a ToolCall may have
 * made many calls), at most `cap` returned.
 */
export async function effectsSince(audit: Pick<AuditLog, "query">, runId: string, since: number, cap = 50): Promise<{ intents: AuditRecord[]; finished: Set<number> }> {
  const intents: AuditRecord[] = [];
  const finished = new Set<number>();
  let cursor: string | null = null;
  do {
    const page = await audit.query({ runId, since, limit: 200, ...(cursor === null ? {} : { cursor }) });
    for (const record of page.records) {
      if (!isEffect(record)) continue;
      if (record.status === "intent" && record.decision === "allow") intents.push(record);
      else if (record.intentSeq !== null) finished.add(record.intentSeq);
    }
    cursor = page.nextCursor;
  } while (cursor !== null && intents.length < cap);
  return { intents: intents.slice(0, cap), finished };
}

/** A host call, or the start of a sub-agent run (its child's effects are recorded under the child). */
export function isEffect(record: AuditRecord): boolean {
  return record.kind === "host_call" || (record.kind === "tool_call" && (record.tool ?? "").startsWith(SUB_AGENT_TOOL_PREFIX));
}

/** The intents as a person reads them: which proxy call, with which arguments, and whether it ended. */
export function describeEffects(intents: readonly AuditRecord[], outcomes: ReadonlySet<number>): string {
  return intents
    .map((record) => {
      const call = record.hostCall !== null ? `${record.hostCall.proxy}.${record.hostCall.function}` : (record.tool ?? "host call");
      const args = record.args === null ? "" : ` ${record.args.length > 200 ? `${record.args.slice(0, 197)}...` : record.args}`;
      return `${call}${args} (${outcomes.has(record.seq) ? "finished" : "no outcome recorded: it may or may not have happened"})`;
    })
    .join("; ");
}
