/**
 * The outcomes a run's ToolCalls end with before or without their tool running: a refusal, a
 * pause for an approval, a replay that still waits.
 */
import type { Approval } from "../policy/approvals/index.js";
import type { ActiveToolCall } from "./host-context.js";
import type { PendingToolCall } from "./records.js";
import type { ApprovalNeeded, ToolCallError, ToolCallOutcome } from "./types.js";

/** Ends `active` with `error`, timed from `started` (performance.now()). */
export function errorOutcome(active: ActiveToolCall, started: number, error: ToolCallError): ToolCallOutcome {
  return { id: active.toolCallId, tool: active.qualifiedName, stepId: active.stepId, status: "error", error, durationMs: performance.now() - started };
}

/** Ends `active` waiting for `approval`, timed from `started`. */
export function approvalOutcome(active: ActiveToolCall, started: number, approval: ApprovalNeeded): ToolCallOutcome {
  return { id: active.toolCallId, tool: active.qualifiedName, stepId: active.stepId, status: "approval_required", approval, durationMs: performance.now() - started };
}

/** A replayed call whose approval `pending` names is still undecided (or gone). */
export function stillWaiting(id: string, tool: string, options: { pending: PendingToolCall; approval: Approval | undefined }): ToolCallOutcome {
  const { pending, approval } = options;
  const needed: ApprovalNeeded = {
    id: pending.approvalId,
    kind: approval?.kind ?? "tool_call",
    tool,
    reason: approval?.reason ?? "approval not found",
    expiresAt: approval?.expiresAt ?? 0,
  };
  return { id, tool, stepId: pending.stepId, status: "approval_required", approval: needed, durationMs: 0 };
}
