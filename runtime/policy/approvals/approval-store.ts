import { InvalidInputError } from "../../errors.js";
import { applyMigrations } from "../../store/index.js";
import type { Clock, Store } from "../../store/index.js";
import { randomUUID } from "node:crypto";
import { consumeEffect, consumeToolCall, findDenied } from "./consume.js";
import type { ApprovalContext } from "./context.js";
import { decideApproval } from "./decide.js";
import { changedSince, getApproval, listApprovals, pendingForRun } from "./query.js";
import { requestApproval } from "./request.js";
import { approvalMigrations } from "./schema.js";
import type { PatternEventInput } from "../../audit/index.js";
import { approveByPattern, type ApprovePatternInput } from "./patterns/approve.js";
import { armPattern, endRunPatterns, getPattern, listPatterns, matchPattern, revokePattern } from "./patterns/store.js";
import type { ApprovalPattern, ListPatternsOptions, PatternMatch } from "./patterns/store.js";
import type {
  Approval,
  ApprovalRequestInput,
  DecideInput,
  DeniedMatch,
  EffectMatch,
  ListApprovalsOptions,
  ToolCallMatch,
} from "./types.js";

export interface ApprovalStoreOptions {
  /** Decides expiry; tests move it. */
  readonly clock: Clock;
  /** How long a request waits for a decision. Default 60. */
  readonly expiryMinutes?: number;
  /**
   * How long an approval stays usable once granted, counted from the decision. Default
   * `expiryMinutes`. A `run` approval lapses after it too: a long run asks again.
   */
  readonly approvedExpiryMinutes?: number;
  /** Default `apr_` + a random UUID. */
  readonly newId?: () => string;
  /**
   * Where a pattern created, revoked or ended with its run is recorded (the audit log's
   * `appendPatternEvent`). A pattern is stored unarmed and put in force only once its creation is
   * recorded: when the record fails (or the process dies first) it matches nothing, so no
   * standing approval exists that the log does not show. A revoke is stored before it is recorded.
   */
  readonly audit?: PatternAuditSink;
}

export type PatternAuditSink = (event: PatternEventInput) => Promise<unknown>;

const DEFAULT_EXPIRY_MINUTES = 60;
const MINUTE_MS = 60_000;

/**
 * Approvals of Guarded ToolCalls and Unsafe effects (DESIGN: Policy), in the `approvals` table.
 * Holds no state of its own beyond its options: every answer comes from the store, so several
 * runtime nodes sharing a libSQL server see one set of approvals.
 */
export class ApprovalStore {
  readonly #ctx: ApprovalContext;
  readonly #audit: PatternAuditSink | undefined;

  /** Applies the `approvals` migrations, then returns the store. */
  static async open(store: Store, options: ApprovalStoreOptions): Promise<ApprovalStore> {
    await applyMigrations(store, approvalMigrations, { clock: options.clock });
    return new ApprovalStore(store, options);
  }

  /** For a store already migrated (`approvalMigrations` passed to `openStore`). */
  constructor(store: Store, options: ApprovalStoreOptions) {
    const pending = minutes(options.expiryMinutes ?? DEFAULT_EXPIRY_MINUTES, "expiryMinutes");
    const approved = minutes(options.approvedExpiryMinutes ?? options.expiryMinutes ?? DEFAULT_EXPIRY_MINUTES, "approvedExpiryMinutes");
    this.#ctx = {
      store,
      clock: options.clock,
      newId: options.newId ?? (() => `apr_${randomUUID()}`),
      pendingMs: pending * MINUTE_MS,
      approvedMs: approved * MINUTE_MS,
    };
    this.#audit = options.audit;
  }

  /** Files a pending approval, or returns the pending one with the same binding. */
  request(input: ApprovalRequestInput): Promise<Approval> {
    return requestApproval(this.#ctx, input);
  }

  /**
   * Records a person's decision on a pending, unexpired approval. Throws `ApprovalError`
   * (`approval_not_found` 404, `approval_not_pending` 409, `approval_expired` 410) or
   * `InvalidInputError` (`scope: run` on an effect, an unknown decision, no `by`).
   */
  decide(id: string, input: DecideInput): Promise<Approval> {
    return decideApproval(this.#ctx, { ...input, id });
  }

  /** The store's clock: what expiry is measured against. */
  now(): number {
    return this.#ctx.clock.now();
  }

  /** Approves pending approval `id` by a pattern (see `approveByPattern`): the call runs, later ones it covers too. */
  async approveByPattern(id: string, input: ApprovePatternInput): Promise<{ approval: Approval; pattern: ApprovalPattern }> {
    const decided = await approveByPattern(this.#ctx, id, input);
    // Stored unarmed: only once its creation is in the audit log does it match anything.
    await this.#audit?.(patternEvent("create", { ...decided.pattern, revokedAt: null, revokedBy: null }, input.by));
    return { approval: decided.approval, pattern: await armPattern(this.#ctx, decided.pattern.id) };
  }

  /** The active pattern that covers this call (its match counted), or `undefined`. */
  matchPattern(match: PatternMatch): Promise<ApprovalPattern | undefined> {
    return matchPattern(this.#ctx, match);
  }

  getPattern(id: string): Promise<ApprovalPattern | undefined> {
    return getPattern(this.#ctx, id);
  }

  /** Newest first. */
  listPatterns(options: ListPatternsOptions = {}): Promise<ApprovalPattern[]> {
    return listPatterns(this.#ctx, options);
  }

  /** Revokes an active pattern: nothing matches it any more. */
  async revokePattern(id: string, by: string): Promise<ApprovalPattern> {
    const revoked = await revokePattern(this.#ctx, id, by);
    await this.#audit?.(patternEvent("revoke", revoked, by));
    return revoked;
  }

  /** The approval that lets this ToolCall run (spending a `once`), or `undefined`. */
  consumeToolCall(match: ToolCallMatch): Promise<Approval | undefined> {
    return consumeToolCall(this.#ctx, match);
  }

  /** The single-use approval for exactly this host call (spent), or `undefined`. */
  consumeEffect(match: EffectMatch): Promise<Approval | undefined> {
    return consumeEffect(this.#ctx, match);
  }

  /** The newest denial covering this ToolCall or host call, or `undefined`. */
  findDenied(match: DeniedMatch): Promise<Approval | undefined> {
    return findDenied(this.#ctx, match);
  }

  get(id: string): Promise<Approval | undefined> {
    return getApproval(this.#ctx, id);
  }

  /** Newest first; expired requests are reported `expired`. */
  list(options: ListApprovalsOptions = {}): Promise<Approval[]> {
    return listApprovals(this.#ctx, options);
  }

  /**
   * Closes what run `runId` left open, called when the run ends. What it still asked for
   * (pending) or was given but never used is withdrawn, so a person can no longer approve an
   * effect it will never make and an approval given late can never be spent by a replay. A
   * `run`-scoped approval the run did use reads `used` (it did its job; its reason stays the
   * person's), and one already past its deadline reads `expired`, as every read would report it:
   * `withdrawn` says only "asked for, never used". Returns the ids withdrawn.
   */
  async withdrawForRun(runId: string, reason: string): Promise<string[]> {
    const now = this.#ctx.clock.now();
    const result = await this.#ctx.store.execute({
      sql: `UPDATE approvals SET
          status = CASE WHEN use_count > 0 THEN 'used' WHEN expires_at <= ? THEN 'expired' ELSE 'withdrawn' END,
          decision_reason = CASE WHEN use_count > 0 OR expires_at <= ? THEN decision_reason ELSE ? END,
          decided_at = COALESCE(decided_at, ?)
        WHERE run_id = ? AND status IN ('pending', 'approved') RETURNING id, status`,
      args: [now, now, reason, now, runId],
    });
    await this.#endRunPatterns(runId, reason);
    return result.rows.filter((row) => row.status === "withdrawn").map((row) => String(row.id));
  }

  /**
   * The run's `applies_to: run` patterns end with it (durably, in the shared store, so no node
   * matches them); each end is audited as a `withdraw`. An audit failure leaves them ended.
   */
  async #endRunPatterns(runId: string, reason: string): Promise<void> {
    const ended = await endRunPatterns(this.#ctx, runId);
    for (const p of ended) await this.#audit?.(patternEvent("withdraw", p, `runtime: ${reason}`)).catch(() => undefined);
  }

  /** Asked for or decided at `since` or later, on any node (see `changedSince`). */
  changedSince(since: number, limit = 1000): Promise<Approval[]> {
    return changedSince(this.#ctx, since, limit);
  }

  /** What the run waits on, oldest first. */
  pendingForRun(runId: string): Promise<Approval[]> {
    return pendingForRun(this.#ctx, runId);
  }
}

function minutes(value: number, field: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(`${field}: ${value} must be a positive number of minutes`, { field });
  }
  return value;
}

function patternEvent(action: PatternEventInput["action"], p: ApprovalPattern, by: string): PatternEventInput {
  return {
    action,
    id: p.id,
    agent: p.agent,
    kind: p.kind,
    tool: p.tool,
    capability: p.capability,
    arguments: p.arguments,
    runId: p.runId,
    approvalId: p.approvalId,
    expiresAt: p.expiresAt,
    by,
  };
}
