/**
 * The audit records of a delivery that belongs to a run: its intent before the first attempt
 * (no intent, no delivery), its outcome after the last.
 */
import type { AuditLog, AuditRecord } from "../audit/index.js";
import type { Logger } from "../log/index.js";
import type { WebhookTarget } from "./config.js";
import type { DeadLetters } from "./dead-letters.js";
import type { WebhookPayload } from "./payload.js";

export interface AuditSinks {
  readonly audit?: Pick<AuditLog, "appendIntent" | "appendOutcome">;
  readonly deadLetters: DeadLetters;
  readonly log: Logger;
}

/**
 * The delivery's intent, when it belongs to a run and an audit log is given; null when it could
 * not be written: then nothing is sent (fail closed) and the event is a dead letter.
 */
export async function deliveryIntent(sinks: AuditSinks, target: WebhookTarget, payload: WebhookPayload): Promise<AuditRecord | undefined | null> {
  const d = payload.data as { run_id?: unknown; trace_id?: unknown; agent?: unknown; approval?: { id?: unknown } };
  if (sinks.audit === undefined || typeof d.run_id !== "string" || typeof d.trace_id !== "string") return undefined;
  try {
    return await sinks.audit.appendIntent({
      kind: "host_call",
      traceId: d.trace_id,
      runId: d.run_id,
      agent: typeof d.agent === "string" ? d.agent : "",
      hostCall: { proxy: "webhooks", function: "deliver" },
      args: {
        event: payload.type,
        event_id: payload.id,
        format: target.format,
        target: new URL(target.url).origin,
        ...(target.telegram === undefined ? {} : { chat_id: target.telegram.chatId }),
        ...(typeof d.approval?.id === "string" ? { approval_id: d.approval.id } : {}),
      },
    });
  } catch (error) {
    sinks.log.error({ err: error, event: payload.id }, "webhook not sent: its audit intent could not be written");
    await sinks.deadLetters.add(target, payload, 0, "not sent: the audit intent could not be written");
    return null;
  }
}

export async function deliveryOutcome(sinks: AuditSinks, intent: AuditRecord | undefined, target: WebhookTarget, result: { attempts: number; error?: string }): Promise<void> {
  if (intent === undefined || sinks.audit === undefined) return;
  await sinks.audit
    .appendOutcome(intent, {
      status: result.error === undefined ? "ok" : "error",
      summary: { attempts: result.attempts, target: new URL(target.url).origin, ...(result.error === undefined ? {} : { dead_lettered: true }) },
      ...(result.error === undefined ? {} : { error: { code: "dead_lettered", message: result.error } }),
    })
    .catch((error: unknown) => sinks.log.error({ err: error }, "webhook delivery outcome not audited"));
}
