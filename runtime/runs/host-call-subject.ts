/**
 * The audit subject of one host call: the run's subject, the ToolCall it belongs to (if one is
 * running), the proxy function and its canonical arguments. One builder for every record a
 * host call writes (intent, denial, a refused redirect hop).
 */
import type { AuditSubject } from "../audit/index.js";
import type { PolicyLayers } from "../policy/engine.js";

export interface HostCallSource {
  subject: () => Omit<AuditSubject, "kind">;
  active: () => { stepId: string; qualifiedName: string; toolCallId: string; tool: { plugin: { name: string } } } | undefined;
  layers: PolicyLayers;
}

export function hostCallSubject(
  source: HostCallSource,
  call: { proxy: string; fn: string; args: unknown; capability: string | undefined },
  approvalResult: string | null,
): AuditSubject {
  const active = source.active();
  return {
    ...source.subject(),
    kind: "host_call",
    stepId: active?.stepId ?? null,
    plugin: active?.tool.plugin.name ?? null,
    tool: active?.qualifiedName ?? null,
    toolCall: active ? { id: active.toolCallId, name: active.qualifiedName } : null,
    hostCall: { proxy: call.proxy, function: call.fn },
    args: call.args as never,
    requestedCapabilities: call.capability === undefined ? [] : [call.capability],
    grantedCapabilities: Object.keys(source.layers.agent.grants),
    approvalRequired: approvalResult !== null,
    approvalResult,
  };
}
