/**
 * The intent and outcome of one allowed host call, committed as its durability class says
 * (host-proxies/durability.ts):
 * - an effect: the ToolCall's own intent, then this call's, are durable before the effect runs
 *   (a rejection here means the effect must not run); its outcome is queued after it;
 * - a read: intent and outcome are queued without a write of their own (the ToolCall's outcome
 *   commits them, or a group commit a few ms later), off the path the guest waits on.
 * Either way the queued records are tracked on the ToolCall, whose result is released only
 * once they are durable.
 */
import { AuditError } from "../audit/index.js";
import type { AuditLog, AuditRecord, AuditSubject, DeferredIntent, IntentGuard, OutcomeInput } from "../audit/index.js";
import type { Durability } from "../../host-proxies/durability.js";
import type { ActiveToolCall } from "./host-context-types.js";

export interface HostCallRecord {
  /** Appends the call's outcome (never throws: a failed write withholds the ToolCall's result). */
  settle(outcome: OutcomeInput): void;
}

export async function openHostCallRecord(
  audit: AuditLog,
  subject: AuditSubject,
  options: { durability: Durability; active: ActiveToolCall | undefined; guard?: IntentGuard | undefined },
): Promise<HostCallRecord> {
  const records = options.active?.records;
  const track = (written: Promise<AuditRecord>) => {
    if (records) records.track(written);
    else written.catch(() => undefined);
  };
  if (options.durability === "read") {
    const intent: DeferredIntent = audit.deferIntent(subject);
    return { settle: (outcome) => track(audit.appendOutcome(intent, outcome, { defer: true })) };
  }
  // Fail closed: the ToolCall's intent and this one are durable before the effect, or it does not
  // happen. The ToolCall's intent, queued before this one, is written by the same commit (batches
  // take the queue in order), not by one of its own first.
  const toolCallIntent = options.active?.recorded?.ensure();
  const intent = await audit.appendIntent(subject, options.guard === undefined ? undefined : { guard: options.guard });
  // Batches commit one after another in order, so every record this ToolCall queued before the
  // intent has settled by now. One that failed (the ToolCall's intent, in an earlier batch; a
  // read whose records a batch lost) stops the effect: what was read unrecorded must not leave
  // through it, and an effect is never made under a ToolCall that is not on record.
  const lost = (await toolCallIntent?.then(() => undefined, (error: unknown) => error as Error)) ?? records?.failure;
  if (lost !== undefined) {
    track(audit.appendOutcome(intent, { status: "error", error: { code: "audit_write_failed", message: "not made: an earlier record of its ToolCall could not be written" } }));
    throw new AuditError("audit_write_failed", `audit: an earlier record of this ToolCall could not be written, so its effect is not made: ${lost.message}`, { cause: lost });
  }
  return { settle: (outcome) => track(audit.appendOutcome(intent, outcome)) };
}
