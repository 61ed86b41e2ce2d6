import type { SqlValue } from "../../store/index.js";
import type { ApprovalContext } from "./context.js";
import { readApproval } from "./query.js";
import { approvalFromRow } from "./row.js";
import { SELECT } from "./schema.js";
import type { Approval, DeniedMatch, EffectMatch, ToolCallMatch } from "./types.js";

/**
 * The approval that lets this ToolCall run, or `undefined`. A `once` approval must match run,
 * step, tool and arguments hash exactly and is spent by the match; a `run` approval matches any
 * call of the tool in the run and stays (its use count grows). The exact `once` match is tried
 * first so the audit names the decision that was about this very call.
 */
export async function consumeToolCall(ctx: ApprovalContext, match: ToolCallMatch): Promise<Approval | undefined> {
  const once = await claim(ctx, {
    where: "kind = 'tool_call' AND scope = 'once' AND run_id = ? AND step_id = ? AND tool = ? AND args_hash = ?",
    args: [match.runId, match.stepId, match.tool, match.argsHash],
    spend: true,
  });
  if (once !== undefined) return once;
  return claim(ctx, {
    where: "kind = 'tool_call' AND scope = 'run' AND run_id = ? AND tool = ?",
    args: [match.runId, match.tool],
    spend: false,
  });
}

/**
 * The approval for exactly this host call, spent by the match: a replayed ToolCall that makes the
 * same call with the same canonical arguments runs once; a second identical call asks again.
 */
export async function consumeEffect(ctx: ApprovalContext, match: EffectMatch): Promise<Approval | undefined> {
  return claim(ctx, {
    where: "kind = 'effect' AND run_id = ? AND tool = ? AND capability = ? AND effect_hash = ?",
    args: [match.runId, match.tool, match.capability, match.effectHash],
    spend: true,
  });
}

/**
 * The newest denial covering this call, so a resumed run can tell the model "a person said no"
 * instead of asking again. A denial does not expire: it is a decision, not a permission.
 */
export async function findDenied(ctx: ApprovalContext, match: DeniedMatch): Promise<Approval | undefined> {
  const [where, args]: [string, SqlValue[]] =
    match.kind === "tool_call"
      ? [
          "kind = 'tool_call' AND run_id = ? AND tool = ? AND (scope = 'run' OR (step_id = ? AND args_hash = ?))",
          [match.runId, match.tool, match.stepId, match.argsHash],
        ]
      : ["kind = 'effect' AND run_id = ? AND tool = ? AND capability = ? AND effect_hash = ?", [match.runId, match.tool, match.capability, match.effectHash]];
  const result = await ctx.store.execute({
    sql: `${SELECT} WHERE status = 'denied' AND ${where} ORDER BY decided_at DESC, rowid DESC LIMIT 1`,
    args,
  });
  const row = result.rows[0];
  return row === undefined ? undefined : approvalFromRow(row);
}

interface Claim {
  where: string;
  args: SqlValue[];
  /** `once`: move to `used`, so no second call can match it. */
  spend: boolean;
}

/**
 * Finds approved, unexpired candidates and claims one with an UPDATE that repeats the conditions.
 * Two calls racing for one `once` approval both see it, but only one UPDATE changes the row; the
 * other moves on to the next candidate or finds none. Checking and spending in one statement is
 * what keeps a single-use approval single use across processes.
 */
async function claim(ctx: ApprovalContext, spec: Claim): Promise<Approval | undefined> {
  const now = ctx.clock.now();
  const candidates = await ctx.store.execute({
    sql: `SELECT id FROM approvals WHERE status = 'approved' AND expires_at > ? AND ${spec.where} ORDER BY decided_at, rowid`,
    args: [now, ...spec.args],
  });
  const set = spec.spend ? "status = 'used', " : "";
  for (const candidate of candidates.rows) {
    const id = String(candidate.id);
    const update = await ctx.store.execute({
      sql: `UPDATE approvals SET ${set}used_at = ?, use_count = use_count + 1 WHERE id = ? AND status = 'approved' AND expires_at > ?`,
      args: [now, id, now],
    });
    if (update.rowsAffected === 1) return readApproval(ctx, id);
  }
  return undefined;
}
