import type { JsonValue } from "../../audit/index.js";
import type { Risk } from "../../plugins/manifest.js";
import type { Row, SqlValue } from "../../store/index.js";
import type { Approval, ApprovalDecision, ApprovalKind, ApprovalScope, ApprovalStatus } from "./types.js";

/** A stored row as an `Approval`. The table's CHECKs guarantee the enum columns' values. */
export function approvalFromRow(row: Row): Approval {
  const effect = optionalText(row, "effect");
  return {
    id: text(row, "id"),
    kind: text(row, "kind") as ApprovalKind,
    status: text(row, "status") as ApprovalStatus,
    scope: optionalText(row, "scope") as ApprovalScope | null,
    runId: text(row, "run_id"),
    traceId: text(row, "trace_id"),
    agent: text(row, "agent"),
    parentRunId: optionalText(row, "parent_run_id"),
    stepId: text(row, "step_id"),
    toolCallId: text(row, "tool_call_id"),
    tool: text(row, "tool"),
    input: JSON.parse(text(row, "input")) as JsonValue,
    argsHash: text(row, "args_hash"),
    capability: optionalText(row, "capability"),
    effect: effect === null ? null : (JSON.parse(effect) as JsonValue),
    effectHash: optionalText(row, "effect_hash"),
    risk: text(row, "risk") as Risk,
    reason: text(row, "reason"),
    context: optionalText(row, "context"),
    createdAt: integer(row, "created_at"),
    expiresAt: integer(row, "expires_at"),
    decision: optionalText(row, "decision") as ApprovalDecision | null,
    decidedBy: optionalText(row, "decided_by"),
    decidedAt: optionalInteger(row, "decided_at"),
    decisionReason: optionalText(row, "decision_reason"),
    usedAt: optionalInteger(row, "used_at"),
    useCount: integer(row, "use_count"),
    untrustedSources: sources(text(row, "untrusted_sources")),
    secretsRead: secretReads(row.secrets_read === undefined ? "[]" : text(row, "secrets_read")),
  };
}

function value(row: Row, column: string): SqlValue {
  const v = row[column];
  // A missing column is a bug in this room's SQL, not bad data: say which.
  if (v === undefined) throw new Error(`approvals: column ${column} missing from the row`);
  return v;
}

function text(row: Row, column: string): string {
  return String(value(row, column));
}

function optionalText(row: Row, column: string): string | null {
  const v = value(row, column);
  return v === null ? null : String(v);
}

function integer(row: Row, column: string): number {
  return Number(value(row, column));
}

function optionalInteger(row: Row, column: string): number | null {
  const v = value(row, column);
  return v === null ? null : Number(v);
}

function secretReads(json: string): Approval["secretsRead"] {
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((entry: { tool_call_id?: unknown; tool?: unknown; secrets?: unknown }) =>
    typeof entry?.tool_call_id === "string" && typeof entry.tool === "string" && Array.isArray(entry.secrets)
      ? [{ toolCallId: entry.tool_call_id, tool: entry.tool, secrets: entry.secrets.filter((s): s is string => typeof s === "string") }]
      : [],
  );
}

function sources(json: string): readonly string[] {
  const parsed = JSON.parse(json) as unknown;
  return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === "string") : [];
}
