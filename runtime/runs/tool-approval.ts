import type { AuditSubject } from "../audit/index.js";
import { ApprovalError, type Approval } from "../policy/approvals/index.js";
import type { Denial } from "../../host-proxies/types.js";
import { toolCallSubject, type ActiveToolCall } from "./host-context.js";
import { approvalTooLarge } from "./tool-execution.js";
import { readsBefore } from "./untrusted-sources.js";
import type { SecretRead } from "./report.js";
import type { RunServices, RunSetup } from "./run-setup.js";

/** The approval a Guarded call waits for, or the denial when none can be filed (too large). */
export async function requestToolApproval(
setup: RunSetup,
services: RunServices,
subject: Omit<AuditSubject, "kind">,
active: ActiveToolCall,
input: unknown,
context: string | undefined,
reason?: string,
secretsRead: readonly SecretRead[] = [],
): Promise<Approval | Denial> {
  const approval = await services.approvals.request({
    kind: "tool_call",
    runId: setup.id,
    traceId: setup.traceId,
    agent: setup.agent.name,
    parentRunId: setup.parentRunId,
    stepId: active.stepId,
    toolCallId: active.toolCallId,
    tool: active.qualifiedName,
    input,
    risk: active.risk,
    reason: reason ?? `${active.qualifiedName} is ${active.risk === "unsafe" ? "Unsafe" : "Guarded"}: it needs a person's approval before it runs`,
    context: context ?? null,
    ...(await readsBefore(services.audit, setup.traceId, secretsRead)),
    expiryMinutes: setup.agent.approvals.expiry_minutes,
  }).catch((error: unknown) => {
    if (error instanceof ApprovalError && error.code === "approval_too_large") return approvalTooLarge(active.tool.capabilities, error);
    throw error;
  });
  if ("message" in approval) return approval;
  const granted = Object.keys(setup.layers.task ?? setup.layers.agent.grants);
  await services.audit.appendDenial({
    ...toolCallSubject(subject, { active, input, granted, approvalResult: "pending" }),
    denial: { capability: active.tool.capabilities.join(",") || "tool", reason: "approval-required", message: `approval ${approval.id} is needed` },
  });
  return approval;
}
