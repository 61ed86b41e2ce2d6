import type { AuditLog, AuditRecord } from "../audit/index.js";
import { describeEffects, effectsSince, isEffect } from "./journal.js";

type TakeoverAudit = Pick<AuditLog, "query" | "flush" | "appendOutcome">;

/** The ToolCall a node was inside when it stopped: when it started, that node, and the node taking the run over. */
export interface InterruptedToolCall {
  readonly since: number;
  readonly node?: string;
  readonly by?: string;
}

/**
 * Whether a ToolCall that `node` started at `since` and never finished (its node died, closed or
 * lost its lease) may simply run again: yes when it had begun no effect; else the reason a person
 * is asked first, naming each effect's intent and whether its outcome was recorded. Either way
 * every intent the stopped node left open for the run is closed first (see `closeOpenIntents`).
 */
export async function interruptedEffects(audit: TakeoverAudit, runId: string, started: InterruptedToolCall): Promise<string | undefined> {
  await audit.flush();
  const { intents, finished } = await effectsSince(audit, runId, started.since);
  await closeOpenIntents(audit, runId, started);
  if (intents.length === 0) return undefined;
  const who = started.node === undefined ? "its previous node" : `its previous node (${started.node})`;
  return (
    `this run was taken over: ${who} stopped inside this ToolCall after it had begun ${intents.length} effect(s): ` +
    `${describeEffects(intents, finished)}. Approve to run the ToolCall again (those effects may happen twice), deny to fail it.`
  );
}

/**
 * Gives every intent of run `runId` since `since` that has no outcome the only outcome anyone can
 * honestly give it, so the chain says what is known and `audit verify` shows nothing still in
 * flight: an effect's is `interrupted` (it may or may not have happened); the ToolCall's own (and
 * any other) is `abandoned`, naming the takeover — the ToolCall is run again, or asked about,
 * under an intent of its own. Called before the node taking over writes anything for the run, so
 * every open intent found is the stopped node's. Paged, uncapped: a ToolCall may have begun many
 * host calls, and each is closed.
 */
export async function closeOpenIntents(audit: TakeoverAudit, runId: string, started: InterruptedToolCall): Promise<number> {
  const open = new Map<number, AuditRecord>();
  let cursor: string | null = null;
  do {
    const page = await audit.query({ runId, since: started.since, limit: 200, ...(cursor === null ? {} : { cursor }) });
    for (const record of page.records) {
      if (record.status === "intent") open.set(record.seq, record);
      else if (record.intentSeq !== null) open.delete(record.intentSeq);
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  const from = started.node === undefined ? "its previous node" : `node ${started.node}`;
  const to = started.by === undefined ? "another node" : `node ${started.by}`;
  for (const intent of open.values()) {
    const error = isEffect(intent)
      ? { code: "interrupted", message: `its node stopped before recording the outcome (the run was taken over from ${from} by ${to}): the effect may or may not have happened` }
      : { code: "abandoned", message: `the run was taken over from ${from} by ${to} while this ToolCall was in flight; it is run again, or asked about, under a new intent` };
    await audit.appendOutcome(intent, { status: "error", error });
  }
  return open.size;
}
