import { boundedPage, type Statement, type Store } from "../store/index.js";
import { camelKeys, snakeKeys } from "../json/snake.js";
import type { RunEvent } from "./types.js";

/**
 * Stored in the API's names (snake_case), read back in the runtime's: a ToolCall's `input` is the
 * caller's data and a Step's `usage` is already snake_case, so both pass unchanged either way.
 */
const EVENT_DATA: ReadonlySet<string> = new Set(["input", "usage"]);

/** A run event as stored: numbered per run, so a reader resumes after the last one it saw. */
export interface StoredRunEvent {
  seq: number;
  type: RunEvent["type"];
  at: number;
  data: RunEvent;
}

/**
 * The `run_events` table: every event of every run, so any node sharing the store can stream a
 * run's events (also one another node drives, or one that has ended). Appends are queued and
 * written together up to 25 ms later (one transaction for many events: a Step of the run loop
 * is a few ms, so a write per event cost it a third of its time); a run flushes before it
 * reports a pause or its end, so a reader who sees either also sees every event before it.
 * A stream served from this node hears a run's events as they happen anyway.
 */
export class RunEventLog {
  readonly #store: Store;
  #queue: Statement[] = [];
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  append(runId: string, seq: number, event: RunEvent): void {
    this.#queue.push({
      sql: "INSERT INTO run_events (run_id, seq, type, data, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, seq) DO NOTHING",
      args: [runId, seq, event.type, JSON.stringify(snakeKeys(event, EVENT_DATA)), event.at],
    });
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush().catch(() => undefined);
    }, 25);
  }

  /** Writes everything queued so far. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#flushing = this.#store.batch(batch).then(
      () => undefined,
      (error: unknown) => {
        // Events are a view of the run, not its record (the audit log is): a failed write is
        // reported to the flusher and the run goes on.
        throw error;
      },
    );
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  /**
   * Events of run `runId` after `after` (a seq), oldest first: at most `limit`, fewer when that
   * many would be more than one statement may return (read on after the last one).
   */
  async list(runId: string, options: { after?: number; limit?: number } = {}): Promise<StoredRunEvent[]> {
    const page = (limit: number) => ({ sql: "SELECT seq, type, data, at FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?", args: [runId, options.after ?? 0, limit] });
    const result = await boundedPage(this.#store, page, Math.min(options.limit ?? 500, 5000));
    return result.rows.map((row) => ({ seq: Number(row.seq), type: String(row.type) as RunEvent["type"], at: Number(row.at), data: camelKeys<RunEvent>(JSON.parse(String(row.data)), EVENT_DATA) }));
  }

  /** The last seq stored for `runId` (0 when none). */
  async lastSeq(runId: string): Promise<number> {
    const result = await this.#store.execute({ sql: "SELECT max(seq) AS seq FROM run_events WHERE run_id = ?", args: [runId] });
    return Number(result.rows[0]?.seq ?? 0);
  }
}
