import type { AuditLog } from "../audit/index.js";
import { describeEffects, effectsSince } from "./journal.js";

/**
 * Whether a ToolCall that `node` started at `since` and never finished (its node died, closed or
 * lost its lease) may simply run again: yes when it had begun no effect; else the reason a person
 * is asked first, naming each effect's intent and whether its outcome was recorded.
 */
export async function interruptedEffects(audit: Pick<AuditLog, "query" | "flush" | "appendOutcome">, runId: string, started: { since: number; node?: string }): Promise<string | undefined> {
  await audit.flush();
  const { intents, finished } = await effectsSince(audit, runId, started.since);
  if (intents.length === 0) return undefined;
  // An intent its node never closed gets the only outcome anyone can honestly give it, so the
  // chain says what is known (and verify shows no effect still in flight).
  for (const intent of intents) {
    if (finished.has(intent.seq)) continue;
    await audit.appendOutcome(intent, { status: "error", error: { code: "interrupted", message: "its node stopped before recording the outcome: the effect may or may not have happened" } });
  }
  const who = started.node === undefined ? "its previous node" : `its previous node (${started.node})`;
  return (
    `this run was taken over: ${who} stopped inside this ToolCall after it had begun ${intents.length} effect(s): ` +
    `${describeEffects(intents, finished)}. Approve to run the ToolCall again (those effects may happen twice), deny to fail it.`
  );
}
