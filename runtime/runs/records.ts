import { boundedPage, type Statement, type Store } from "../store/index.js";
import { listedOutcomes, outcomeStatements, partStatements, planColumns, readOutcomes, readRunPart, resultColumns, resultPartStatements, storedOutcomes } from "./run-values.js";
import { json, toRecord, type PendingToolCall, type RunEndReason, type RunRecord, type RunStatus } from "./run-record.js";

export { runMigrations } from "./run-record.js";
export { INLINE_BYTES } from "./run-values.js";
export type { PendingToolCall, PlannedCall, RunEndReason, RunRecord, RunStatus } from "./run-record.js";

/** The `runs` table: everything another process needs to resume or report on a run. */
export class RunRecords {
  readonly #store: Store;
  constructor(store: Store) {
    this.#store = store;
  }

  async create(
    record: Omit<RunRecord, "endedAt" | "report" | "pending" | "status" | "endReason" | "ownerToken" | "plan" | "planNext" | "outcomes" | "node" | "leaseUntil" | "cancelRequested" | "result" | "conversationId"> &
      Partial<Pick<RunRecord, "ownerToken" | "plan" | "node" | "leaseUntil" | "conversationId">>,
    options: { with?: readonly Statement[] } = {},
  ): Promise<void> {
    // A plan larger than a row (large inputs) is kept in parts, in the same transaction; so are
    // `with`'s statements (the first ToolCall's journal mark).
    const plan = planColumns(record.plan ?? null);
    await this.#store.batch([{
      sql: `INSERT INTO runs (id, trace_id, task_id, parent_run_id, agent, plugins, task, task_grants, status, created_at, owner_token, plan, node, lease_until, conversation_id, plan_parts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?)`,
      args: [
        record.id,
        record.traceId,
        record.taskId,
        record.parentRunId,
        record.agent,
        json(record.plugins),
        record.task,
        json(record.taskGrants),
        record.createdAt,
        record.ownerToken ?? null,
        plan.inline,
        record.node ?? null,
        record.leaseUntil ?? null,
        record.conversationId ?? null,
        plan.parts.length,
      ],
    }, ...partStatements(record.id, "plan", plan.parts), ...(options.with ?? [])]);
  }

  /**
   * Records how far the plan got: the next ToolCall and every outcome so far, in one statement
   * (written when the run waits for a person or ends, not after each call: the run's events
   * carry each outcome as it lands). `stored`: how many are stored already, when the caller knows.
   */
  async planProgress(id: string, next: number, outcomes: readonly unknown[], node?: string, options: { stored?: number } = {}): Promise<void> {
    // Given `node`, fenced: a node another took the run from does not overwrite its progress.
    // Outcomes only grow: those not yet stored are added, each a row (with parts when large,
    // see run-values.ts), in the transaction that moves the plan on. A run whose outcomes an
    // older version kept in its row moves them all to rows here.
    const fence = { sql: "EXISTS (SELECT 1 FROM runs WHERE id = ? AND (? IS NULL OR node IS NULL OR node = ?))", args: [id, node ?? null, node ?? null] };
    const from = options.stored ?? (await storedOutcomes(this.#store, id));
    await this.#store.batch([
      { sql: "UPDATE runs SET plan_next = ?, outcomes = NULL WHERE id = ? AND (? IS NULL OR node IS NULL OR node = ?)", args: [next, id, node ?? null, node ?? null] },
      ...outcomeStatements(id, outcomes, { from, guard: fence }),
    ]);
  }

  /**
   * Takes (or renews) the lease on run `id` for `node` until `until`: granted when nobody holds
   * it, this node holds it, or the holder's lease has run out (the holder died). Ended runs
   * are never leased.
   */
  async claim(id: string, node: string, options: { now: number; until: number }): Promise<boolean> {
    const result = await this.#store.execute({
      sql: "UPDATE runs SET node = ?, lease_until = ? WHERE id = ? AND status != 'ended' AND (node IS NULL OR node = ? OR lease_until IS NULL OR lease_until < ?)",
      args: [node, options.until, id, node, options.now],
    });
    return result.rowsAffected === 1;
  }

  /** Takes run `id` over from node `from` (known to be gone), if it still holds it. */
  async takeOver(id: string, options: { from: string; to: string; until: number }): Promise<boolean> {
    const result = await this.#store.execute({
      sql: "UPDATE runs SET node = ?, lease_until = ? WHERE id = ? AND status != 'ended' AND node = ?",
      args: [options.to, options.until, id, options.from],
    });
    return result.rowsAffected === 1;
  }

  /** Renews every lease `node` holds on unfinished runs among `ids`. */
  async renew(node: string, ids: readonly string[], until: number): Promise<void> {
    if (ids.length === 0) return;
    await this.#store.execute({
      sql: `UPDATE runs SET lease_until = ? WHERE node = ? AND status != 'ended' AND id IN (${ids.map(() => "?").join(", ")})`,
      args: [until, node, ...ids],
    });
  }

  /** Lets go of run `id` (this node stops driving it; another may take it at once). */
  async release(id: string, node: string): Promise<void> {
    await this.#store.execute({ sql: "UPDATE runs SET node = NULL, lease_until = NULL WHERE id = ? AND node = ?", args: [id, node] });
  }

  async requestCancel(id: string): Promise<boolean> {
    const result = await this.#store.execute({ sql: "UPDATE runs SET cancel_requested = 1 WHERE id = ? AND status != 'ended'", args: [id] });
    return result.rowsAffected === 1;
  }

  /**
   * Driven runs (those with a plan, and those the model drives) ready to go on, with who holds
   * them: those waiting for an approval a person has decided, and those waiting for a sub-agent
   * run that has ended. For a node to continue those it holds or may take over.
   */
  async decidedWaiting(): Promise<Array<{ id: string; node: string | null; leaseUntil: number | null }>> {
    const result = await this.#store.execute(
      `SELECT r.id, r.node, r.lease_until FROM runs r
         LEFT JOIN approvals a ON a.id = json_extract(r.pending, '$.approvalId')
         LEFT JOIN runs c ON c.id = json_extract(r.pending, '$.childRunId')
       WHERE r.status = 'awaiting_approval'
         AND CASE WHEN json_extract(r.pending, '$.childRunId') IS NULL THEN a.status IS NOT NULL AND a.status != 'pending' ELSE c.status = 'ended' END
         AND (r.plan IS NOT NULL OR EXISTS (SELECT 1 FROM run_loops l WHERE l.run_id = r.id))
       ORDER BY r.created_at LIMIT 100`,
    );
    return result.rows.map((row) => ({ id: String(row.id), node: row.node === null ? null : String(row.node), leaseUntil: row.lease_until === null ? null : Number(row.lease_until) }));
  }

  /**
   * The run waiting for sub-agent run `childRunId` to end, if one does (its parent, at most).
   */
  async waitingFor(childRunId: string): Promise<string | undefined> {
    const result = await this.#store.execute({
      sql: "SELECT id FROM runs WHERE status = 'awaiting_approval' AND json_extract(pending, '$.childRunId') = ?",
      args: [childRunId],
    });
    const row = result.rows[0];
    return row === undefined ? undefined : String(row.id);
  }

  /** Ids among `ids` whose cancellation was requested (by any node). */
  async cancelRequested(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const result = await this.#store.execute({
      sql: `SELECT id FROM runs WHERE cancel_requested = 1 AND status != 'ended' AND id IN (${ids.map(() => "?").join(", ")})`,
      args: [...ids],
    });
    return result.rows.map((row) => String(row.id));
  }

  /**
   * Records the ToolCall run `id` waits on (or that it waits on none). Given `node`, fenced: a
   * node another took the run from writes nothing (false), as `planProgress` and `end`.
   */
  async setPending(id: string, pending: PendingToolCall | null, node?: string): Promise<boolean> {
    const result = await this.#store.execute({
      sql: "UPDATE runs SET pending = ?, status = ? WHERE id = ? AND status != 'ended' AND (? IS NULL OR node IS NULL OR node = ?)",
      args: [json(pending), pending ? "awaiting_approval" : "active", id, node ?? null, node ?? null],
    });
    if (result.rowsAffected === 0) return false;
    if (pending) await this.#passApprovalUp(id, pending.approvalId);
    return true;
  }

  /**
   * Each ancestor waiting on run `id` (through its sub-agent tool) shows the approval the chain
   * now waits for: a child that goes on and asks again, or whose own child asks, is still what
   * its parent waits on.
   */
  async #passApprovalUp(id: string, approvalId: string): Promise<void> {
    let child = id;
    for (let depth = 0; depth < 32; depth++) {
      const result = await this.#store.execute({
        sql: `UPDATE runs SET pending = json_set(pending, '$.approvalId', ?)
              WHERE status = 'awaiting_approval' AND json_extract(pending, '$.childRunId') = ? RETURNING id`,
        args: [approvalId, child],
      });
      const row = result.rows[0];
      if (row === undefined) return;
      child = String(row.id);
    }
  }

  /**
   * Ends run `id`; `result` (why it failed, when the loop did not already say) is kept unless
   * one is already stored. One statement, so a retry after a failed write repeats it whole.
   * Given `node`, fenced: nothing is written (false) when the run has ended already (on another
   * node, or by this write's own earlier try) or another node holds it.
   */
  async end(id: string, report: unknown, endedAt: number, reason: RunEndReason = "completed", result?: string, node?: string): Promise<boolean> {
    // A result larger than a row leaves its preview there and its whole text in parts, written
    // in the same transaction and only under a row that took this result.
    const { inline, parts } = resultColumns(id, result);
    const [written] = await this.#store.batch([
      {
        sql: `UPDATE runs SET status = 'ended', pending = NULL, report = ?, ended_at = ?, end_reason = ?, node = NULL, lease_until = NULL,
                result_parts = CASE WHEN result IS NULL THEN ? ELSE result_parts END, result = COALESCE(result, ?)
              WHERE id = ? AND (? IS NULL OR (status != 'ended' AND (node IS NULL OR node = ?)))`,
        args: [json(report), endedAt, reason, inline === null ? 0 : parts.length, inline, id, node ?? null, node ?? null],
      },
      ...resultPartStatements(id, parts, { sql: "EXISTS (SELECT 1 FROM runs WHERE id = ? AND status = 'ended' AND result_parts = ? AND result = ?)", args: [id, parts.length, inline] }),
    ]);
    return written!.rowsAffected === 1;
  }

  /**
   * Whether run `id` may still make an effect, as the store says (not this node's memory): a
   * cancel asked for on any node, an end recorded by another, or (given `node`) another node
   * holding its lease stops it.
   */
  async stopped(id: string, node?: string): Promise<"cancelled" | "ended" | "ended-cancelled" | "taken" | undefined> {
    const result = await this.#store.execute({ sql: "SELECT status, cancel_requested, node, end_reason FROM runs WHERE id = ?", args: [id] });
    const row = result.rows[0];
    if (row === undefined) return "ended";
    // Ended by another node: one that carried out a cancel says so (`ended-cancelled`).
    if (row.status === "ended") return row.end_reason === "cancelled" ? "ended-cancelled" : "ended";
    if (Number(row.cancel_requested) === 1) return "cancelled";
    // Fencing: a node whose lease ran out (a partition, a long pause) and another took the run
    // over makes no further effect for it.
    return node !== undefined && row.node !== null && row.node !== node ? "taken" : undefined;
  }

  /**
   * Driven runs (a plan, or the model loop) left `active` that node `node` does not hold: let go
   * of (their node closed), or held by another node (whose lease may have run out, or whose
   * process may be gone). The caller decides which to take over.
   */
  /**
   * Active runs another node (or none) holds. `drivable`: the run has a plan or a loop state, so
   * any node can continue it; else nothing here can (a run its node died starting before its
   * loop state was written, or one driven only by its node's caller, e.g. an MCP session).
   */
  async orphans(node: string, limit = 100): Promise<Array<{ id: string; node: string | null; leaseUntil: number | null; cancelRequested: boolean; drivable: boolean }>> {
    const result = await this.#store.execute({
      sql: `SELECT r.id, r.node, r.lease_until, r.cancel_requested,
                   (r.plan IS NOT NULL OR EXISTS (SELECT 1 FROM run_loops l WHERE l.run_id = r.id)) AS drivable
            FROM runs r
            WHERE r.status = 'active' AND (r.node IS NULL OR r.node != ?)
            ORDER BY r.lease_until, r.created_at LIMIT ?`,
      args: [node, limit],
    });
    return result.rows.map((row) => ({
      id: String(row.id),
      node: row.node === null ? null : String(row.node),
      leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
      cancelRequested: Number(row.cancel_requested) === 1,
      drivable: Number(row.drivable) === 1,
    }));
  }

  /** Run `id` whole: its outcomes and result read from their parts when large. */
  async get(id: string): Promise<RunRecord | undefined> {
    const result = await this.#store.execute({ sql: "SELECT * FROM runs WHERE id = ?", args: [id] });
    const row = result.rows[0];
    if (!row) return undefined;
    const record = toRecord(row);
    // Outcomes an older version kept in the row stay there until the plan moves on.
    if (row.outcomes === null || row.outcomes === undefined) record.outcomes = await readOutcomes(this.#store, id);
    if (Number(row.result_parts ?? 0) > 0) record.result = await readRunPart(this.#store, id, "result");
    if (Number(row.plan_parts ?? 0) > 0) record.plan = JSON.parse(await readRunPart(this.#store, id, "plan")) as RunRecord["plan"];
    return record;
  }

  /** Ids of runs not yet ended whose agent listed plugin `name` (compared case-insensitively). */
  async unfinishedUsing(name: string): Promise<string[]> {
    const key = name.toLowerCase();
    const result = await this.#store.execute("SELECT id, plugins FROM runs WHERE status != 'ended' AND plugins IS NOT NULL ORDER BY created_at");
    return result.rows
      .filter((row) => (JSON.parse(String(row.plugins)) as string[]).some((p) => p.toLowerCase() === key))
      .map((row) => String(row.id));
  }

  /** Newest first; `before` (a previous page's last run) starts after it. */
  async list(options: { status?: RunStatus; agent?: string; limit?: number; ownerToken?: string; before?: { createdAt: number; id: string } } = {}): Promise<RunRecord[]> {
    const where: string[] = [];
    const args: Array<string | number> = [];
    if (options.before) {
      where.push("(created_at < ? OR (created_at = ? AND id < ?))");
      args.push(options.before.createdAt, options.before.createdAt, options.before.id);
    }
    if (options.status) {
      where.push("status = ?");
      args.push(options.status);
    }
    if (options.agent !== undefined) {
      where.push("agent = ?");
      args.push(options.agent);
    }
    if (options.ownerToken !== undefined) {
      where.push("owner_token = ?");
      args.push(options.ownerToken);
    }
    // Large rows (a long task, a plan of large inputs) make a full page more than one
    // statement may return: it is read with fewer runs (the caller's next page goes on).
    const { rows } = await boundedPage(
      this.#store,
      (limit) => ({ sql: `SELECT * FROM runs ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id DESC LIMIT ?`, args: [...args, limit] }),
      options.limit ?? 100,
    );
    const records = rows.map(toRecord);
    const outcomes = await listedOutcomes(this.#store, rows.filter((row) => row.outcomes === null || row.outcomes === undefined).map((row) => String(row.id)));
    for (const record of records) record.outcomes = outcomes.get(record.id) ?? record.outcomes;
    return records;
  }
}
