/** The body every webhook delivery signs and sends, and the approval events' data. */
import type { Approval } from "../policy/approvals/index.js";
import type { WebhookEvent } from "./config.js";
import { approvalLink } from "./push-text.js";

export interface WebhookPayload {
  readonly id: string;
  readonly type: WebhookEvent;
  readonly created_at: string;
  readonly data: Record<string, unknown>;
}

/**
 * An approval event read from the store. Its id is the same on every node (`evt_<approval>_<what>`),
 * so a receiver or a stream reader can drop a repeat.
 */
export function approvalPayload(type: "approval.requested" | "approval.decided", a: Approval, consoleUrl?: string): WebhookPayload {
  const base = { run_id: a.runId, trace_id: a.traceId, agent: a.agent, ...(a.parentRunId === null ? {} : { parent_run_id: a.parentRunId }) };
  const seen = seenFields(a.id, a.risk, consoleUrl);
  if (type === "approval.requested") {
    return {
      id: `evt_${a.id}_requested`,
      type,
      created_at: new Date(a.createdAt).toISOString(),
      data: { ...base, approval: { id: a.id, kind: a.kind, tool: a.tool, reason: a.reason, expires_at: new Date(a.expiresAt).toISOString(), ...seen } },
    };
  }
  return {
    id: `evt_${a.id}_decided`,
    type,
    created_at: new Date(a.decidedAt ?? a.createdAt).toISOString(),
    data: { ...base, approval: { id: a.id, kind: a.kind, tool: a.tool, decision: a.decision, scope: a.scope, by: a.decidedBy, ...seen } },
  };
}

/** Like the chat formats, a JSON payload says how risky the approval is and where a person decides it. */
export function seenFields(id: string, risk: string | undefined, consoleUrl: string | undefined): Record<string, string> {
  return { ...(risk === undefined ? {} : { risk }), ...(consoleUrl === undefined ? {} : { decision_url: approvalLink(consoleUrl, id) }) };
}
