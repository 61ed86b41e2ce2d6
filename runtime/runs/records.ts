import type { Migration, Row, Store } from "../store/index.js";

export type RunStatus = "active" | "awaiting_approval" | "ended";

/** A ToolCall the run could not finish without a person: replayed once its approval is decided. */
export interface PendingToolCall {
  tool: string;
  input: unknown;
  stepId: string;
  approvalId: string;
  /** The ToolCall's own (Guarded) approval was already given: a replay does not ask again. */
  toolApproved?: boolean;
}

export interface RunRecord {
  id: string;
  traceId: string;
  taskId: string;
  parentRunId: string | null;
  agent: string;
  /** The plugins its agent listed when it started (a removal waits for the run to end). */
  plugins: string[] | null;
  task: string | null;
  /** The task's narrower grant (JSON), or null for the agent's whole grant. */
  taskGrants: unknown;
  status: RunStatus;
  pending: PendingToolCall | null;
  report: unknown;
  createdAt: number;
  endedAt: number | null;
}

export const runMigrations: readonly Migration[] = [
  {
    room: "runs",
    version: 1,
    name: "runs",
    statements: [
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        parent_run_id TEXT,
        agent TEXT NOT NULL,
        task TEXT,
        task_grants TEXT,
        status TEXT NOT NULL,
        pending TEXT,
        report TEXT,
        created_at INTEGER NOT NULL,
        ended_at INTEGER
      ) STRICT`,
      "CREATE INDEX runs_status ON runs (status)",
      "CREATE INDEX runs_trace ON runs (trace_id)",
    ],
  },
  {
    room: "runs",
    version: 2,
    name: "the plugins a run uses",
    statements: ["ALTER TABLE runs ADD COLUMN plugins TEXT"],
  },
];

/** The `runs` table: everything another process needs to resume or report on a run. */
export class RunRecords {
  readonly #store: Store;
  constructor(store: Store) {
    this.#store = store;
  }

  async create(record: Omit<RunRecord, "endedAt" | "report" | "pending" | "status">): Promise<void> {
    await this.#store.execute({
      sql: `INSERT INTO runs (id, trace_id, task_id, parent_run_id, agent, plugins, task, task_grants, status, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)`,
      args: [record.id, record.traceId, record.taskId, record.parentRunId, record.agent, json(record.plugins), record.task, json(record.taskGrants), record.createdAt],
    });
  }

  async setPending(id: string, pending: PendingToolCall | null): Promise<void> {
    await this.#store.execute({
      sql: "UPDATE runs SET pending = ?, status = ? WHERE id = ? AND status != 'ended'",
      args: [json(pending), pending ? "awaiting_approval" : "active", id],
    });
  }

  async end(id: string, report: unknown, endedAt: number): Promise<void> {
    await this.#store.execute({
      sql: "UPDATE runs SET status = 'ended', pending = NULL, report = ?, ended_at = ? WHERE id = ?",
      args: [json(report), endedAt, id],
    });
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const result = await this.#store.execute({ sql: "SELECT * FROM runs WHERE id = ?", args: [id] });
    const row = result.rows[0];
    return row ? toRecord(row) : undefined;
  }

  /** Ids of runs not yet ended whose agent listed plugin `name` (compared case-insensitively). */
  async unfinishedUsing(name: string): Promise<string[]> {
    const key = name.toLowerCase();
    const result = await this.#store.execute("SELECT id, plugins FROM runs WHERE status != 'ended' AND plugins IS NOT NULL ORDER BY created_at");
    return result.rows
      .filter((row) => (JSON.parse(String(row.plugins)) as string[]).some((p) => p.toLowerCase() === key))
      .map((row) => String(row.id));
  }

  async list(options: { status?: RunStatus; limit?: number } = {}): Promise<RunRecord[]> {
    const result = options.status
      ? await this.#store.execute({ sql: "SELECT * FROM runs WHERE status = ? ORDER BY created_at DESC LIMIT ?", args: [options.status, options.limit ?? 100] })
      : await this.#store.execute({ sql: "SELECT * FROM runs ORDER BY created_at DESC LIMIT ?", args: [options.limit ?? 100] });
    return result.rows.map(toRecord);
  }
}

function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function toRecord(row: Row): RunRecord {
  const parse = (v: unknown) => (typeof v === "string" ? (JSON.parse(v) as unknown) : null);
  return {
    id: String(row.id),
    traceId: String(row.trace_id),
    taskId: String(row.task_id),
    parentRunId: row.parent_run_id === null ? null : String(row.parent_run_id),
    agent: String(row.agent),
    plugins: parse(row.plugins) as string[] | null,
    task: row.task === null ? null : String(row.task),
    taskGrants: parse(row.task_grants),
    status: String(row.status) as RunStatus,
    pending: parse(row.pending) as PendingToolCall | null,
    report: parse(row.report),
    createdAt: Number(row.created_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
  };
}
