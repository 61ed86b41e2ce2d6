/**
 * The API's views (docs/api.md) read back into the records the commands print, so a command
 * shows the same lines, and `--json` the same fields, whether it went through a server or opened
 * the store. A field the API does not expose is left out, never made up.
 */
import { camelKeys } from "../json/snake.js";
import type { Approval, ApprovalDecision, ApprovalKind, ApprovalScope, ApprovalStatus } from "../policy/approvals/index.js";
import type { AuditRecord, JsonValue } from "../audit/index.js";
import type { Risk } from "../plugins/manifest.js";
import type { RunRecord } from "../runs/records.js";
import type { ToolInfo } from "../runs/types.js";

/** What both modes know of a run: its record without the driver's bookkeeping (plan, lease, owner). */
export type RunSummary = Pick<RunRecord, "id" | "traceId" | "taskId" | "parentRunId" | "agent" | "task" | "status" | "report" | "createdAt" | "endedAt" | "endReason" | "outcomes"> & {
  /** `input` is unknown when the run came through the API and its approval is not readable with this token. */
  pending: (Omit<NonNullable<RunRecord["pending"]>, "input"> & { input?: unknown }) | null;
};

/** `GET /v1/runs/:id` → `run`. */
export interface RunView {
  id: string;
  trace_id: string;
  task_id: string;
  parent_run_id: string | null;
  agent: string;
  task: string | null;
  status: RunRecord["status"];
  end_reason: RunRecord["endReason"];
  created_at: string;
  ended_at: string | null;
  /** `sub_agent_run_id`: the run waits for that sub-agent run, whose approval `id` is. */
  pending_approval: { id: string; tool: string; step_id: string; sub_agent_run_id?: string } | null;
  tool_calls: number | null;
  outcomes: unknown[];
  /** A model-driven run's final answer. */
  result?: string | null;
  conversation_id?: string | null;
  report: unknown;
}

/** `GET /v1/approvals` → `approvals[]` (runtime/api/routes/approvals.ts `approvalView`). */
export interface ApprovalView {
  id: string;
  kind: ApprovalKind;
  status: ApprovalStatus;
  run_id: string;
  trace_id: string;
  parent_run_id: string | null;
  step_id: string;
  tool_call_id: string;
  agent: string;
  tool: string;
  risk: Risk;
  arguments: { json: string; sha256: string };
  effect: { capability: string; json: string; sha256: string | null } | null;
  reason: string;
  context: string | null;
  task: string | null;
  created_at: string;
  expires_at: string;
  decision: { decision: ApprovalDecision; scope: ApprovalScope | null; by: string; at: string | null; reason: string | null } | null;
  used: { count: number; last_at: string | null };
  /** Absent from servers older than the field. */
  untrusted_sources?: string[];
  secrets_read?: Array<{ tool_call_id: string; tool: string; secrets: string[] }>;
}

/** `GET /v1/tools` → `tools[]`. */
export interface ToolView {
  name: string;
  plugin: string;
  tool: string;
  description: string;
  input_schema: unknown;
  capabilities: string[];
  risk: ToolInfo["risk"];
}

function ms(iso: string): number;
function ms(iso: string | null): number | null;
function ms(iso: string | null): number | null {
  return iso === null ? null : Date.parse(iso);
}

export function runFromView(view: RunView, pendingInput?: { input: unknown }): RunSummary {
  return {
    id: view.id,
    traceId: view.trace_id,
    taskId: view.task_id,
    parentRunId: view.parent_run_id,
    agent: view.agent,
    task: view.task,
    status: view.status,
    pending:
      view.pending_approval === null
        ? null
        : {
            tool: view.pending_approval.tool,
            stepId: view.pending_approval.step_id,
            approvalId: view.pending_approval.id,
            ...(view.pending_approval.sub_agent_run_id === undefined ? {} : { childRunId: view.pending_approval.sub_agent_run_id }),
            ...(pendingInput === undefined ? {} : { input: pendingInput.input }),
          },
    // The store keeps a report once the run ends; the API also shows a live run's report so far.
    report: view.status === "ended" ? camelKeys(view.report) : null,
    createdAt: ms(view.created_at),
    endedAt: ms(view.ended_at),
    endReason: view.end_reason,
    // The store's names, as the local mode shows them (the API answers snake_case).
    outcomes: view.outcomes.map((o) => camelKeys(o, new Set(["output", "input"]))),
  };
}

/** The exact values come from the views' JSON text (`arguments.json`), not their inert display copies. */
export function approvalFromView(view: ApprovalView): Approval {
  return {
    id: view.id,
    kind: view.kind,
    status: view.status,
    scope: view.decision?.scope ?? null,
    runId: view.run_id,
    traceId: view.trace_id,
    agent: view.agent,
    parentRunId: view.parent_run_id,
    stepId: view.step_id,
    toolCallId: view.tool_call_id,
    tool: view.tool,
    input: JSON.parse(view.arguments.json) as JsonValue,
    argsHash: view.arguments.sha256,
    capability: view.effect?.capability ?? null,
    effect: view.effect === null ? null : (JSON.parse(view.effect.json) as JsonValue),
    effectHash: view.effect?.sha256 ?? null,
    risk: view.risk,
    reason: view.reason,
    context: view.context,
    createdAt: ms(view.created_at),
    expiresAt: ms(view.expires_at),
    decision: view.decision?.decision ?? null,
    decidedBy: view.decision?.by ?? null,
    decidedAt: ms(view.decision?.at ?? null),
    decisionReason: view.decision?.reason ?? null,
    usedAt: ms(view.used.last_at),
    useCount: view.used.count,
    untrustedSources: view.untrusted_sources ?? [],
    secretsRead: (view.secrets_read ?? []).map((r) => ({ toolCallId: r.tool_call_id, tool: r.tool, secrets: r.secrets })),
  };
}

export function toolFromView(view: ToolView): ToolInfo {
  return {
    plugin: view.plugin,
    name: view.tool,
    qualifiedName: view.name,
    description: view.description,
    inputSchema: view.input_schema,
    capabilities: view.capabilities,
    risk: view.risk,
  };
}

/** The API's snake_case names back to the store's camelCase (the one mapping, runtime/json/snake.ts). */
export { camelKeys };

/** `GET /v1/audit` → `records[]`, as the store keeps them (the capabilities are the grants' own values). */
export function auditRecordFromView(view: unknown): AuditRecord {
  return camelKeys<AuditRecord>(view, new Set(["requested_capabilities", "granted_capabilities", "arguments"]));
}
