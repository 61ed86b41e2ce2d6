import { AuditError } from "./errors.js";
import type { AuditErrorInfo, AuditLog, AuditRecord, IntentInput } from "./types.js";

export interface AuditedEffect<T> {
  readonly intent: IntentInput;
  /** Runs only after the intent is durable. */
  readonly effect: (intent: AuditRecord) => Promise<T> | T;
  /** Bytes of the result, for the outcome record. */
  readonly resultSize?: (result: T) => number;
  /** How a thrown value is recorded; default its `code` (or `effect_failed`) and message. */
  readonly describeError?: (error: unknown) => AuditErrorInfo;
}

/**
 * Fail closed, in one place: writes the intent, runs the effect only once the intent is durable,
 * then records the outcome.
 *
 * - The intent write fails → rejects with it; the effect never runs.
 * - The effect throws → records an `error` outcome, then rethrows the effect's error.
 * - The outcome write fails → rejects with `audit_outcome_failed` (the result is withheld: the
 *   audit store is failing, and the next intent would be refused anyway); the intent stays open
 *   and `verify()` reports it in flight.
 */
export async function withAudit<T>(log: AuditLog, audited: AuditedEffect<T>): Promise<T> {
  const intent = await log.appendIntent(audited.intent);
  let result: T;
  try {
    result = await audited.effect(intent);
  } catch (error) {
    const info = (audited.describeError ?? describe)(error);
    await recordOutcome(() => log.appendOutcome(intent, { status: "error", error: info }), error);
    throw error;
  }
  const resultSize = audited.resultSize === undefined ? null : audited.resultSize(result);
  await recordOutcome(() => log.appendOutcome(intent, { status: "ok", resultSize }));
  return result;
}

async function recordOutcome(append: () => Promise<AuditRecord>, effectError?: unknown): Promise<void> {
  try {
    await append();
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new AuditError("audit_outcome_failed", `audit outcome: the effect ran but its outcome was not recorded: ${detail}`, {
      cause: effectError === undefined ? cause : new AggregateError([effectError, cause]),
    });
  }
}

function describe(error: unknown): AuditErrorInfo {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === "string" ? code : "effect_failed", message: error.message };
  }
  return { code: "effect_failed", message: String(error) };
}
