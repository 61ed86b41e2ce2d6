import { InvalidInputError } from "../../errors.js";
import type { SqlValue } from "../../store/index.js";
import type { ApprovalContext } from "./context.js";
import { approvalFromRow } from "./row.js";
import { SELECT } from "./schema.js";
import type { Approval, ApprovalStatus, ListApprovalsOptions } from "./types.js";

const STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "denied", "expired", "used", "withdrawn"];
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** Which rows a lazy expiry pass may touch: one approval, one run's, one binding's, or all. */
export type ExpiryScope = { id: string } | { runId: string } | { dedupeKey: string } | "all";

/**
 * Marks `pending` and `approved` rows past their deadline `expired`. Nothing expires rows in the
 * background (no timers, no hidden state): every read runs this first with the injected clock, so
 * what a reader sees is what the clock says. Consumption and decisions compare `expires_at`
 * themselves and never rely on this having run.
 */
export async function expireDue(ctx: ApprovalContext, scope: ExpiryScope): Promise<void> {
  // A read-only store cannot be marked: reads compute the status instead (see `asOf`).
  if (ctx.store.readOnly === true) return;
  let where = "";
  const args: SqlValue[] = [ctx.clock.now()];
  if (scope !== "all") {
    const [column, value] = "id" in scope ? ["id", scope.id] : "runId" in scope ? ["run_id", scope.runId] : ["dedupe_key", scope.dedupeKey];
    where = ` AND ${column} = ?`;
    args.push(value);
  }
  await ctx.store.execute({
    sql: `UPDATE approvals SET status = 'expired' WHERE status IN ('pending', 'approved') AND expires_at <= ?${where}`,
    args,
  });
}

/** One row as stored, without expiring it first (decisions need to see the stored status). */
export async function readApproval(ctx: ApprovalContext, id: string): Promise<Approval | undefined> {
  const result = await ctx.store.execute({ sql: `${SELECT} WHERE id = ?`, args: [id] });
  const row = result.rows[0];
  return row === undefined ? undefined : approvalFromRow(row);
}

export async function getApproval(ctx: ApprovalContext, id: string): Promise<Approval | undefined> {
  await expireDue(ctx, { id });
  const approval = await readApproval(ctx, id);
  return approval === undefined ? undefined : asOf(approval, ctx.clock.now());
}

/** The status as of `now`, whether or not the row was marked (a read-only store cannot be). */
function asOf(approval: Approval, now: number): Approval {
  return (approval.status === "pending" || approval.status === "approved") && approval.expiresAt <= now ? { ...approval, status: "expired" } : approval;
}

/** The same as `asOf`, in SQL (one `?`: now), for filters on the status. */
const STATUS_AS_OF = "(CASE WHEN status IN ('pending', 'approved') AND expires_at <= ? THEN 'expired' ELSE status END)";

/** Newest first (ties by id, descending). */
export async function listApprovals(ctx: ApprovalContext, options: ListApprovalsOptions = {}): Promise<Approval[]> {
  const limit = checkedLimit(options.limit);
  if (options.status !== undefined && !STATUSES.includes(options.status)) {
    throw new InvalidInputError(`status: ${JSON.stringify(options.status)} must be one of ${STATUSES.join(", ")}`, { field: "status" });
  }
  await expireDue(ctx, options.runId === undefined ? "all" : { runId: options.runId });
  const clauses: string[] = [];
  const args: SqlValue[] = [];
  const now = ctx.clock.now();
  if (options.status !== undefined) {
    clauses.push(`${STATUS_AS_OF} = ?`);
    args.push(now, options.status);
  }
  if (options.runId !== undefined) {
    clauses.push("run_id = ?");
    args.push(options.runId);
  }
  if (options.before !== undefined) {
    clauses.push("(created_at < ? OR (created_at = ? AND id < ?))");
    args.push(options.before.createdAt, options.before.createdAt, options.before.id);
  }
  const where = clauses.length === 0 ? "" : ` WHERE ${clauses.join(" AND ")}`;
  // Keyset order: (created_at, id) is unique, so a page that starts after one never skips or repeats a row.
  const result = await ctx.store.execute({
    sql: `${SELECT}${where} ORDER BY created_at DESC, id DESC LIMIT ?`,
    args: [...args, limit],
  });
  return result.rows.map((row) => asOf(approvalFromRow(row), now));
}

/**
 * Approvals asked for, or decided, at `since` or later, by any node sharing the store: oldest
 * change first, at most `limit`. A withdrawal is not a decision (its `decision` stays null).
 */
export async function changedSince(ctx: ApprovalContext, since: number, limit: number): Promise<Approval[]> {
  const result = await ctx.store.execute({
    sql: `${SELECT} WHERE created_at >= ? OR (decided_at >= ? AND decision IS NOT NULL) ORDER BY MAX(created_at, COALESCE(decided_at, 0)), id LIMIT ?`,
    args: [since, since, limit],
  });
  return result.rows.map(approvalFromRow);
}

/** What a run is waiting on, oldest first: the order the person should see them. */
export async function pendingForRun(ctx: ApprovalContext, runId: string): Promise<Approval[]> {
  await expireDue(ctx, { runId });
  const result = await ctx.store.execute({
    sql: `${SELECT} WHERE run_id = ? AND ${STATUS_AS_OF} = 'pending' ORDER BY created_at, rowid`,
    args: [runId, ctx.clock.now()],
  });
  return result.rows.map(approvalFromRow);
}

function checkedLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new InvalidInputError(`limit: ${limit} must be a whole number from 1 to ${MAX_LIMIT}`, { field: "limit" });
  }
  return limit;
}
