import { InvalidInputError } from "../../errors.js";
import type { ApprovalContext } from "./context.js";
import { ApprovalError } from "./errors.js";
import { readApproval } from "./query.js";
import type { Approval, DecideInput } from "./types.js";

const DECIDE_SQL = `UPDATE approvals
  SET status = ?, scope = ?, decision = ?, decided_by = ?, decided_at = ?, decision_reason = ?, expires_at = ?
  WHERE id = ? AND status = 'pending' AND expires_at > ?`;

/**
 * Records a person's decision. The UPDATE is conditional on the row still being pending and
 * unexpired, and only the caller whose UPDATE changed the row has decided: two people deciding
 * at once (two API nodes, a double click) get one decision and one `approval_not_pending`, never
 * a deny silently overwritten by an approve.
 */
export async function decideApproval(ctx: ApprovalContext, request: { id: string } & DecideInput): Promise<Approval> {
  validate(request);
  const current = await readApproval(ctx, request.id);
  if (current === undefined) throw notFound(request.id);
  const scope = request.scope ?? "once";
  if (scope === "run" && current.kind === "effect") {
    throw new InvalidInputError(
      `scope: an effect approval covers one host call and is always once; approve the ToolCall for the run instead`,
      { field: "scope" },
    );
  }
  const now = ctx.clock.now();
  const approve = request.decision === "approve";
  // An approval gets a fresh window to be used in; a denial never expires, so its deadline stays.
  const expiresAt = approve ? now + ctx.approvedMs : current.expiresAt;
  const result = await ctx.store.execute({
    sql: DECIDE_SQL,
    args: [
      approve ? "approved" : "denied",
      scope,
      request.decision,
      request.by,
      now,
      request.reason ?? null,
      expiresAt,
      request.id,
      now,
    ],
  });
  const after = await readApproval(ctx, request.id);
  if (after === undefined) throw notFound(request.id);
  if (result.rowsAffected === 1) return after;
  throw await whyNotDecided(ctx, after);
}

async function whyNotDecided(ctx: ApprovalContext, approval: Approval): Promise<ApprovalError> {
  if (approval.status === "withdrawn") {
    return new ApprovalError(
      "approval_withdrawn",
      `approval ${approval.id}: withdrawn (${approval.decisionReason ?? `run ${approval.runId} ended`}); nothing is left to approve — start a new run if the work is still wanted`,
    );
  }
  if (approval.decision !== null) {
    const decided = approval.decision === "approve" ? "approved" : "denied";
    const now = approval.status === decided ? "" : ` (now ${approval.status})`;
    return new ApprovalError(
      "approval_not_pending",
      `approval ${approval.id}: already ${decided} by ${approval.decidedBy ?? "someone"}${now}; only a pending approval can be decided`,
    );
  }
  // Undecided and not changed by our UPDATE: its deadline passed (lazily marked or not yet).
  const now = ctx.clock.now();
  await ctx.store.execute({
    sql: "UPDATE approvals SET status = 'expired' WHERE id = ? AND status = 'pending' AND expires_at <= ?",
    args: [approval.id, now],
  });
  return new ApprovalError(
    "approval_expired",
    `approval ${approval.id}: expired at ${new Date(approval.expiresAt).toISOString()} without a decision; the run must ask again`,
  );
}

function validate(request: { id: string } & DecideInput): void {
  const decision: unknown = request.decision;
  if (decision !== "approve" && decision !== "deny") {
    throw new InvalidInputError(`decision: ${JSON.stringify(decision)} must be approve or deny`, { field: "decision" });
  }
  const scope: unknown = request.scope;
  if (scope !== undefined && scope !== "once" && scope !== "run") {
    throw new InvalidInputError(`scope: ${JSON.stringify(scope)} must be once or run`, { field: "scope" });
  }
  if (typeof request.by !== "string" || request.by.trim() === "") {
    throw new InvalidInputError("by: say who decided (a user id); an approval nobody can answer for is not one", { field: "by" });
  }
}

function notFound(id: string): ApprovalError {
  return new ApprovalError("approval_not_found", `approval ${id}: not found; list pending approvals to see which exist`);
}
