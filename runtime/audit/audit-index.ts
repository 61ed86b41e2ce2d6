import type { Store } from "../store/index.js";

/**
 * The columns the audit API filters on, kept beside the chain in `audit_index` (one row per
 * record, same seq) instead of as indexes of `audit_records`: each index of `audit_records` was
 * one more page written by every commit on a guest's path. The index table is filled in batches
 * after the records are durable, in a later transaction of its own, so a ToolCall's commit
 * writes the record pages alone. A query reads the index table for what is indexed and scans
 * the records after its last seq (the tail, at most a batch or so) in the same statement.
 */
export const INDEX_COLUMNS = ["kind", "status", "intent_seq", "trace_id", "run_id", "agent", "tool", "start_at"] as const;

const COLUMN_LIST = `seq, ${INDEX_COLUMNS.join(", ")}`;

/** The seq after which records are not yet in the index table (it holds a prefix of the chain). */
export const INDEXED_UP_TO = "(SELECT COALESCE(MAX(seq), 0) FROM audit_index)";

/** audit#5: the table, its indexes, a copy of every record so far, the old indexes dropped. */
export const AUDIT_INDEX_STATEMENTS: readonly string[] = [
  `CREATE TABLE audit_index (
        seq INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        intent_seq INTEGER,
        trace_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        tool TEXT,
        start_at INTEGER NOT NULL
      ) STRICT`,
  "CREATE INDEX audit_index_trace ON audit_index (trace_id)",
  "CREATE INDEX audit_index_run ON audit_index (run_id)",
  "CREATE INDEX audit_index_agent ON audit_index (agent)",
  "CREATE INDEX audit_index_tool ON audit_index (tool)",
  "CREATE INDEX audit_index_start ON audit_index (start_at)",
  "CREATE INDEX audit_index_denied ON audit_index (seq) WHERE status = 'denied'",
  "CREATE INDEX audit_index_error ON audit_index (seq) WHERE status = 'error'",
  // Written out rather than built from INDEX_COLUMNS: a released migration's text never changes.
  "INSERT INTO audit_index (seq, kind, status, intent_seq, trace_id, run_id, agent, tool, start_at) " +
    "SELECT seq, kind, status, intent_seq, trace_id, run_id, agent, tool, start_at FROM audit_records ORDER BY seq",
  "DROP INDEX audit_records_trace",
  "DROP INDEX audit_records_run",
  "DROP INDEX audit_records_agent",
  "DROP INDEX audit_records_tool",
  "DROP INDEX audit_records_start",
  "DROP INDEX audit_records_denied",
  "DROP INDEX audit_records_error",
];

/** Records copied into the index table per statement. */
export const INDEX_BATCH = 512;

const FILL_SQL =
  `INSERT INTO audit_index (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM audit_records ` +
  `WHERE seq > ${INDEXED_UP_TO} ORDER BY seq LIMIT ${INDEX_BATCH}`;

/** How long the log is quiet, by default, before the rest of the tail is indexed. */
export const INDEX_IDLE_MS = 500;

/**
 * Fills `audit_index` from `audit_records`, off the appenders' path: once a batch's worth of
 * records has been written since the last fill, after the log has been quiet a moment, when it
 * is opened (records another process or a crash left unindexed) and when it closes. Each fill
 * statement copies the next records after the table's last seq, so any number of processes may
 * fill one store: SQLite serialises their writes and each one continues where the other stopped.
 * A failed fill is only retried later: queries scan what is not indexed, so nothing is lost.
 */
export class AuditIndexer {
  readonly #store: Store;
  readonly #idleMs: number;
  #written = 0;
  #idle: NodeJS.Timeout | undefined;
  #filling: Promise<void> | null = null;
  #again = false;
  #closed = false;
  #failures = 0;

  /** `idleMs`: how long the log is quiet before the tail is indexed (not finite: only by count, `fill` and `close`). */
  constructor(store: Store, options: { idleMs?: number } = {}) {
    this.#store = store;
    this.#idleMs = options.idleMs ?? INDEX_IDLE_MS;
  }

  /** Fills failed so far (each is retried with the next). */
  get failures(): number {
    return this.#failures;
  }

  /** `count` records were committed. */
  written(count: number): void {
    if (this.#closed || this.#store.readOnly === true) return;
    this.#written += count;
    if (this.#written >= INDEX_BATCH) {
      setImmediate(() => void this.fill());
      return;
    }
    if (!Number.isFinite(this.#idleMs)) return;
    if (this.#idle !== undefined) this.#idle.refresh();
    else {
      this.#idle = setTimeout(() => {
        this.#idle = undefined;
        void this.fill();
      }, this.#idleMs);
      this.#idle.unref();
    }
  }

  /** Indexes every record committed so far; one fill at a time (a call during one runs another after it). */
  fill(): Promise<void> {
    if (this.#store.readOnly === true) return Promise.resolve();
    if (this.#filling !== null) {
      this.#again = true;
      return this.#filling;
    }
    this.#filling = this.#fillAll().finally(() => {
      this.#filling = null;
      if (this.#again && !this.#closed) {
        this.#again = false;
        void this.fill();
      }
    });
    return this.#filling;
  }

  /** Stops the timers and indexes what is left, while the store is still open. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
    await this.#filling;
    await this.#fillAll();
  }

  async #fillAll(): Promise<void> {
    this.#written = 0;
    try {
      for (;;) {
        const { rowsAffected } = await this.#store.execute(FILL_SQL);
        if (rowsAffected < INDEX_BATCH) return;
        // Another turn between batches: a long catch-up never holds the connection for long.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      this.#failures++;
    }
  }
}
