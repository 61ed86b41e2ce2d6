import type { Row, Store } from "../store/index.js";

export type ScheduleKind = "once" | "cron";
export type ScheduleStatus = "active" | "done" | "missed" | "cancelled";
/** `claimed`: this node won the due time and is starting the run; `started` has its run id. */
export type FiringStatus = "claimed" | "started" | "failed" | "missed";

/** A ToolCall a scheduled run carries out (as `submitRun` takes it). */
export interface ScheduledToolCall {
  name: string;
  input: unknown;
}

export interface ScheduleRecord {
  id: string;
  agent: string;
  kind: ScheduleKind;
  /** A one-shot's time (ms since the epoch). */
  at: number | null;
  cron: string | null;
  /** The IANA zone the cron expression is read in; null means UTC. */
  timezone: string | null;
  task: string;
  toolCalls: ScheduledToolCall[] | null;
  /** The grant every firing runs with, fixed when the schedule was created. */
  capturedGrants: unknown;
  ownerToken: string | null;
  until: number | null;
  maxRuns: number | null;
  runsSoFar: number;
  /** The due time of the next firing; null once the schedule has ended. */
  nextAt: number | null;
  status: ScheduleStatus;
  createdAt: number;
  endedAt: number | null;
  /** The agent whose run created it; null when a person did (API or CLI). */
  createdByAgent: string | null;
  /** That run's id; null when a person created it. */
  createdByRun: string | null;
}

export interface FiringRecord {
  scheduleId: string;
  dueAt: number;
  status: FiringStatus;
  runId: string | null;
  error: string | null;
  node: string;
  at: number;
}

/** Which schedules `list` returns (all of them without options), oldest first. */
export interface ScheduleListOptions {
  ownerToken?: string;
  /** Only those runs of this agent created. */
  createdByAgent?: string;
  status?: ScheduleStatus;
  limit?: number;
}

/** How a claim moves the schedule on: its next due time (or end) and whether the firing counts as a run. */
export interface ClaimInput {
  id: string;
  dueAt: number;
  next: number | null;
  status: Exclude<ScheduleStatus, "cancelled">;
  firing: "claimed" | "missed";
  node: string;
  at: number;
}

/** The `schedules` and `schedule_firings` tables. */
export class ScheduleRecords {
  readonly #store: Store;
  constructor(store: Store) {
    this.#store = store;
  }

  async insert(r: ScheduleRecord): Promise<void> {
    await this.insertWithin(r, undefined);
  }

  /**
   * Inserts `r` only while its creating agent has fewer than `limit` active schedules, decided
   * by the database in the write itself: two runs of one agent creating at once cannot together
   * pass the limit. False when refused. Without a limit it always inserts.
   */
  async insertWithin(r: ScheduleRecord, limit: number | undefined): Promise<boolean> {
    const args = [
      r.id, r.agent, r.kind, r.at, r.cron, r.timezone, r.task,
      r.toolCalls === null ? null : JSON.stringify(r.toolCalls),
      JSON.stringify(r.capturedGrants), r.ownerToken, r.until, r.maxRuns, r.runsSoFar, r.nextAt, r.status, r.createdAt, r.endedAt,
      r.createdByAgent, r.createdByRun,
    ];
    const columns = `id, agent, kind, at, cron, timezone, task, tool_calls, captured_grants, owner_token, until, max_runs, runs_so_far, next_at, status, created_at, ended_at, created_by_agent, created_by_run`;
    const values = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
    const result = limit === undefined
      ? await this.#store.execute({ sql: `INSERT INTO schedules (${columns}) VALUES (${values})`, args })
      : await this.#store.execute({
          sql: `INSERT INTO schedules (${columns}) SELECT ${values}
                WHERE (SELECT COUNT(*) FROM schedules WHERE created_by_agent = ? AND status = 'active') < ?`,
          args: [...args, r.createdByAgent, limit],
        });
    return result.rowsAffected === 1;
  }

  /** How many active schedules runs of `agent` created. */
  async liveCreatedBy(agent: string): Promise<number> {
    const result = await this.#store.execute({ sql: "SELECT COUNT(*) AS n FROM schedules WHERE created_by_agent = ? AND status = 'active'", args: [agent] });
    return Number(result.rows[0]?.n ?? 0);
  }

  async get(id: string): Promise<ScheduleRecord | undefined> {
    const result = await this.#store.execute({ sql: "SELECT * FROM schedules WHERE id = ?", args: [id] });
    const row = result.rows[0];
    return row === undefined ? undefined : toRecord(row);
  }

  async list(options: ScheduleListOptions = {}): Promise<ScheduleRecord[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (options.createdByAgent !== undefined) {
      where.push("created_by_agent = ?");
      args.push(options.createdByAgent);
    }
    if (options.ownerToken !== undefined) {
      where.push("owner_token = ?");
      args.push(options.ownerToken);
    }
    if (options.status !== undefined) {
      where.push("status = ?");
      args.push(options.status);
    }
    const result = await this.#store.execute({
      sql: `SELECT * FROM schedules ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`} ORDER BY created_at, id LIMIT ?`,
      args: [...args, options.limit ?? 1000],
    });
    return result.rows.map(toRecord);
  }

  /** Active schedules due at or before `now`, oldest due first. */
  async due(now: number, limit = 100): Promise<ScheduleRecord[]> {
    const result = await this.#store.execute({
      sql: "SELECT * FROM schedules WHERE status = 'active' AND next_at <= ? ORDER BY next_at, id LIMIT ?",
      args: [now, limit],
    });
    return result.rows.map(toRecord);
  }

  /** The earliest due time of any active schedule (any node's), or undefined. */
  async nextDue(): Promise<number | undefined> {
    const result = await this.#store.execute("SELECT MIN(next_at) AS next FROM schedules WHERE status = 'active'");
    const next = result.rows[0]?.next;
    return typeof next === "number" ? next : undefined;
  }

  /**
   * Claims due time `dueAt` of schedule `id` for `node`, in one write transaction: the firing row
   * is inserted only while the schedule is still active and still due at `dueAt`, and the
   * schedule moves on under the same condition. Another node racing for the same due time either
   * finds next_at already moved or hits the (schedule_id, due_at) key: exactly one claim wins.
   */
  async claim(input: ClaimInput): Promise<boolean> {
    const counts = input.firing === "claimed" ? 1 : 0;
    const ended = input.status === "active" ? null : input.at;
    const [inserted, moved] = await this.#store.batch([
      {
        sql: `INSERT OR IGNORE INTO schedule_firings (schedule_id, due_at, status, node, at)
              SELECT id, next_at, ?, ?, ? FROM schedules WHERE id = ? AND status = 'active' AND next_at = ?`,
        args: [input.firing, input.node, input.at, input.id, input.dueAt],
      },
      {
        sql: `UPDATE schedules SET next_at = ?, status = ?, runs_so_far = runs_so_far + ?, ended_at = ?
              WHERE id = ? AND status = 'active' AND next_at = ?`,
        args: [input.next, input.status, counts, ended, input.id, input.dueAt],
      },
    ]);
    return inserted?.rowsAffected === 1 && moved?.rowsAffected === 1;
  }

  /**
   * Firings claimed at or before `before` that never recorded a run: their node died (or hangs)
   * between the claim and the run. Oldest first.
   */
  async staleClaims(before: number, limit = 50): Promise<Array<{ scheduleId: string; dueAt: number; node: string; at: number }>> {
    const result = await this.#store.execute({
      sql: "SELECT schedule_id, due_at, node, at FROM schedule_firings WHERE status = 'claimed' AND at <= ? ORDER BY at LIMIT ?",
      args: [before, limit],
    });
    return result.rows.map((row) => ({ scheduleId: String(row.schedule_id), dueAt: Number(row.due_at), node: String(row.node), at: Number(row.at) }));
  }

  /**
   * Takes a stale claim over for `node`: one conditional write on the claim as it was read, so
   * of several nodes retaking it one wins. The run id is a function of the firing, so even a
   * claimer that wakes up late cannot start a second run.
   */
  async retake(claim: { scheduleId: string; dueAt: number; node: string; at: number }, node: string, at: number): Promise<boolean> {
    const result = await this.#store.execute({
      sql: "UPDATE schedule_firings SET node = ?, at = ? WHERE schedule_id = ? AND due_at = ? AND status = 'claimed' AND node = ? AND at = ?",
      args: [node, at, claim.scheduleId, claim.dueAt, claim.node, claim.at],
    });
    return result.rowsAffected === 1;
  }

  /** Records how a claimed firing went: its run, or why it could not start. */
  async settleFiring(id: string, dueAt: number, outcome: { runId: string } | { error: string }): Promise<void> {
    await this.#store.execute({
      sql: "UPDATE schedule_firings SET status = ?, run_id = ?, error = ? WHERE schedule_id = ? AND due_at = ?",
      args: "runId" in outcome ? ["started", outcome.runId, null, id, dueAt] : ["failed", null, outcome.error, id, dueAt],
    });
  }

  /**
   * Ends an active schedule; false when it was not active (already ended, or unknown). With
   * `createdByAgent`, only a schedule that agent's runs created is touched.
   */
  async cancel(id: string, at: number, options: { createdByAgent?: string } = {}): Promise<boolean> {
    const own = options.createdByAgent === undefined ? "" : " AND created_by_agent = ?";
    const result = await this.#store.execute({
      sql: `UPDATE schedules SET status = 'cancelled', next_at = NULL, ended_at = ? WHERE id = ? AND status = 'active'${own}`,
      args: options.createdByAgent === undefined ? [at, id] : [at, id, options.createdByAgent],
    });
    return result.rowsAffected === 1;
  }

  async firings(id: string, options: { limit?: number } = {}): Promise<FiringRecord[]> {
    const result = await this.#store.execute({
      sql: "SELECT * FROM schedule_firings WHERE schedule_id = ? ORDER BY due_at DESC LIMIT ?",
      args: [id, options.limit ?? 100],
    });
    return result.rows.map((row) => ({
      scheduleId: String(row.schedule_id),
      dueAt: Number(row.due_at),
      status: String(row.status) as FiringStatus,
      runId: nullableText(row.run_id),
      error: nullableText(row.error),
      node: String(row.node),
      at: Number(row.at),
    }));
  }
}

function toRecord(row: Row): ScheduleRecord {
  return {
    id: String(row.id),
    agent: String(row.agent),
    kind: String(row.kind) as ScheduleKind,
    at: nullableNumber(row.at),
    cron: nullableText(row.cron),
    timezone: nullableText(row.timezone),
    task: String(row.task),
    toolCalls: row.tool_calls === null ? null : (JSON.parse(String(row.tool_calls)) as ScheduledToolCall[]),
    capturedGrants: JSON.parse(String(row.captured_grants)) as unknown,
    ownerToken: nullableText(row.owner_token),
    until: nullableNumber(row.until),
    maxRuns: nullableNumber(row.max_runs),
    runsSoFar: Number(row.runs_so_far),
    nextAt: nullableNumber(row.next_at),
    status: String(row.status) as ScheduleStatus,
    createdAt: Number(row.created_at),
    endedAt: nullableNumber(row.ended_at),
    createdByAgent: nullableText(row.created_by_agent),
    createdByRun: nullableText(row.created_by_run),
  };
}

function nullableText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
