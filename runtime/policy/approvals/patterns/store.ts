import { InvalidInputError } from "../../../errors.js";
import type { Row, SqlValue } from "../../../store/index.js";
import type { ApprovalContext } from "../context.js";
import { ApprovalError } from "../errors.js";
import { matchArguments } from "./glob.js";
import type { PatternSpec } from "./choices.js";

export type PatternStatus = "active" | "expired" | "revoked";

/** A standing approval of a pattern. Times are epoch ms. */
export interface ApprovalPattern {
  readonly id: string;
  readonly agent: string;
  readonly kind: "tool_call" | "effect";
  readonly tool: string;
  /** Effects only: the host call's capability, e.g. `shell.exec`. */
  readonly capability: string | null;
  readonly arguments: Readonly<Record<string, string>>;
  /** Set: this run only. `null`: every run of the agent. */
  readonly runId: string | null;
  /** The approval request it was given on, when there was one. */
  readonly approvalId: string | null;
  readonly expiresAt: number;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly revokedBy: string | null;
  readonly revokedAt: number | null;
  readonly status: PatternStatus;
  /** How many calls it let through. */
  readonly matched: number;
  readonly lastMatchedAt: number | null;
}

export interface CreatePatternInput {
  readonly agent: string;
  readonly kind: "tool_call" | "effect";
  readonly pattern: PatternSpec;
  readonly capability?: string | null;
  readonly runId?: string | null;
  readonly approvalId?: string | null;
  readonly expiresAt: number;
  readonly by: string;
}

export interface ListPatternsOptions {
  readonly agent?: string;
  readonly status?: PatternStatus;
  readonly limit?: number;
  readonly before?: { readonly createdAt: number; readonly id: string };
}

/** What a call is matched on: the run's agent, the tool and its (canonical) arguments. */
export interface PatternMatch {
  readonly agent: string;
  readonly runId: string;
  readonly kind: "tool_call" | "effect";
  readonly tool: string;
  readonly capability?: string | null;
  readonly arguments: unknown;
}

/** A standing pattern may last at most 30 days: "always" is not an expiry. */
export const MAX_PATTERN_MS = 30 * 24 * 60 * 60_000;
const SELECT = "SELECT * FROM approval_patterns";

export async function createPattern(ctx: ApprovalContext, input: CreatePatternInput): Promise<ApprovalPattern> {
  const now = ctx.clock.now();
  if (!Number.isFinite(input.expiresAt) || input.expiresAt <= now) throw new InvalidInputError("expires_at: must be in the future", { field: "expires_at" });
  if (input.expiresAt - now > MAX_PATTERN_MS) throw new InvalidInputError("expires_at: a pattern lasts at most 30 days", { field: "expires_at" });
  if (input.kind === "effect" && !input.capability) throw new InvalidInputError("capability: an effect pattern names its capability", { field: "capability" });
  const id = `apt_${ctx.newId().replace(/^apr_/, "")}`;
  // Stored revoked (`UNARMED`) until `armPattern`: a pattern whose creation was never audited,
  // or whose creator died before auditing it, matches nothing (fail closed).
  await ctx.store.execute({
    sql: "INSERT INTO approval_patterns (id, agent, kind, tool, capability, arguments, run_id, approval_id, expires_at, created_by, created_at, revoked_by, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    args: [id, input.agent, input.kind, input.pattern.tool, input.kind === "effect" ? input.capability! : null, JSON.stringify(sorted(input.pattern.arguments)), input.runId ?? null, input.approvalId ?? null, input.expiresAt, input.by, now, UNARMED, now],
  });
  return (await getPattern(ctx, id))!;
}

/** What an unarmed pattern reads as revoked by: its creation is not (yet) in the audit log. */
export const UNARMED = "runtime: its creation could not be audited";

/** Puts a pattern created by `createPattern` in force, once its creation is audited. */
export async function armPattern(ctx: ApprovalContext, id: string): Promise<ApprovalPattern> {
  await ctx.store.execute({ sql: "UPDATE approval_patterns SET revoked_by = NULL, revoked_at = NULL WHERE id = ? AND revoked_by = ?", args: [id, UNARMED] });
  return (await getPattern(ctx, id))!;
}

/**
 * Ends every pattern that serves run `runId` only, when the run ends (succeeded, failed,
 * cancelled, timed out — on any node): its expiry is brought to now, in the shared store, so it
 * matches nothing and lists as expired everywhere. Returns the patterns ended.
 */
export async function endRunPatterns(ctx: ApprovalContext, runId: string): Promise<ApprovalPattern[]> {
  const now = ctx.clock.now();
  const result = await ctx.store.execute({
    sql: "UPDATE approval_patterns SET expires_at = ? WHERE run_id = ? AND revoked_at IS NULL AND expires_at > ? RETURNING *",
    args: [now, runId, now],
  });
  return result.rows.map((row) => fromRow(row, now));
}

export async function getPattern(ctx: ApprovalContext, id: string): Promise<ApprovalPattern | undefined> {
  const result = await ctx.store.execute({ sql: `${SELECT} WHERE id = ?`, args: [id] });
  const row = result.rows[0];
  return row === undefined ? undefined : fromRow(row, ctx.clock.now());
}

/** Newest first. */
export async function listPatterns(ctx: ApprovalContext, options: ListPatternsOptions = {}): Promise<ApprovalPattern[]> {
  const now = ctx.clock.now();
  const where: string[] = [];
  const args: SqlValue[] = [];
  if (options.agent !== undefined) (where.push("agent = ?"), args.push(options.agent));
  if (options.status === "revoked") where.push("revoked_at IS NOT NULL");
  if (options.status === "active") (where.push("revoked_at IS NULL AND expires_at > ?"), args.push(now));
  if (options.status === "expired") (where.push("revoked_at IS NULL AND expires_at <= ?"), args.push(now));
  if (options.before !== undefined) (where.push("(created_at < ? OR (created_at = ? AND id < ?))"), args.push(options.before.createdAt, options.before.createdAt, options.before.id));
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
  const result = await ctx.store.execute({
    sql: `${SELECT}${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    args,
  });
  return result.rows.map((row) => fromRow(row, now));
}

/** Revokes an active pattern; revoking one already revoked or expired is 409. */
export async function revokePattern(ctx: ApprovalContext, id: string, by: string): Promise<ApprovalPattern> {
  const now = ctx.clock.now();
  const update = await ctx.store.execute({
    sql: "UPDATE approval_patterns SET revoked_by = ?, revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND expires_at > ?",
    args: [by, now, id, now],
  });
  const after = await getPattern(ctx, id);
  if (after === undefined) throw new ApprovalError("approval_not_found", `approval pattern ${id}: not found; list patterns to see which exist`);
  if (update.rowsAffected !== 1) throw new ApprovalError("approval_not_pending", `approval pattern ${id}: already ${after.status}; only an active pattern can be revoked`);
  return after;
}

/**
 * The oldest active pattern of this agent that covers this call (for its run, or for the agent),
 * its match counted; `undefined` when none does. Only ever called after the grant allowed the
 * call: a pattern stands in for a person's approval, never for the grant.
 */
export async function matchPattern(ctx: ApprovalContext, match: PatternMatch): Promise<ApprovalPattern | undefined> {
  const now = ctx.clock.now();
  const result = await ctx.store.execute({
    sql: `${SELECT} WHERE agent = ? AND tool = ? AND kind = ? AND (capability IS ? ) AND revoked_at IS NULL AND expires_at > ? AND (run_id IS NULL OR run_id = ?) ORDER BY created_at, id`,
    args: [match.agent, match.tool, match.kind, match.kind === "effect" ? (match.capability ?? null) : null, now, match.runId],
  });
  for (const row of result.rows) {
    const pattern = fromRow(row, now);
    if (!matchArguments(pattern.arguments, match.arguments)) continue;
    // Repeats the conditions: a pattern revoked between the read and now lets nothing through.
    const update = await ctx.store.execute({
      sql: "UPDATE approval_patterns SET matched = matched + 1, last_matched_at = ? WHERE id = ? AND revoked_at IS NULL AND expires_at > ?",
      args: [now, pattern.id, now],
    });
    if (update.rowsAffected === 1) return { ...pattern, matched: pattern.matched + 1, lastMatchedAt: now };
  }
  return undefined;
}

function sorted(args: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(args).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function fromRow(row: Row, now: number): ApprovalPattern {
  const num = (key: string): number | null => (row[key] === null || row[key] === undefined ? null : Number(row[key]));
  const str = (key: string): string | null => (row[key] === null || row[key] === undefined ? null : String(row[key]));
  const expiresAt = Number(row.expires_at);
  const revokedAt = num("revoked_at");
  return {
    id: String(row.id),
    agent: String(row.agent),
    kind: String(row.kind) as "tool_call" | "effect",
    tool: String(row.tool),
    capability: str("capability"),
    arguments: JSON.parse(String(row.arguments)) as Record<string, string>,
    runId: str("run_id"),
    approvalId: str("approval_id"),
    expiresAt,
    createdBy: String(row.created_by),
    createdAt: Number(row.created_at),
    revokedBy: str("revoked_by"),
    revokedAt,
    status: revokedAt !== null ? "revoked" : expiresAt <= now ? "expired" : "active",
    matched: Number(row.matched),
    lastMatchedAt: num("last_matched_at"),
  };
}
