/** What the executor adds to a ToolCall's audit beside its host calls' records. */
import type { AuditLog, AuditSubject } from "../audit/index.js";
import type { ActiveToolCall } from "./host-context-types.js";
import type { Execution } from "./tool-execution.js";

/**
 * One record for the log lines a ToolCall had dropped over `log.per_minute`, however many: a
 * flood costs the audit log one row, tracked with the ToolCall's other records.
 */
export function recordDroppedLines(
  audit: AuditLog,
  call: { subject: Omit<AuditSubject, "kind">; active: ActiveToolCall; dropped: number; perMinute: number; granted: string[] },
): Promise<unknown> {
  const { active, dropped, perMinute } = call;
  const denial = { capability: "log", reason: "rate-limited", message: `${dropped} log line${dropped === 1 ? " was" : "s were"} dropped: over log.per_minute (${perMinute})` };
  return audit.appendDenial({
    ...call.subject,
    kind: "host_call",
    stepId: active.stepId,
    plugin: active.tool.plugin.name,
    tool: active.qualifiedName,
    toolCall: { id: active.toolCallId, name: active.qualifiedName },
    hostCall: { proxy: "log", function: "write" },
    args: { fn: "write", dropped, per_minute: perMinute },
    requestedCapabilities: ["log"],
    grantedCapabilities: call.granted,
    denial,
  });
}

/**
 * The result of a ToolCall a record of which could not be made durable: withheld, whatever the
 * guest returned (fail closed). `started`: its intent is on record, so its host calls may have
 * acted; otherwise none did (each effect needs that intent first).
 */
export function withheld(failure: Error, started: boolean): Execution {
  const message = started
    ? `the result is withheld: a record of this call could not be made durable in the audit log (${failure.message})`
    : `the call was not made because it could not be recorded: ${failure.message}`;
  return { ok: false, error: { kind: "audit-failed", message } };
}
