import { ClawhiveError } from "../errors.js";

/**
 * `audit_write_failed`: the record is not durable, so the effect must not run (503: the store
 * may come back). `audit_closed`: the log was closed. `audit_outcome_failed`: the effect ran but
 * its outcome could not be recorded; its intent stays open and `verify()` reports it in flight.
 * `audit_intent_refused`: the intent's guard refused it (see IntentGuard): the effect must not run.
 */
export type AuditErrorCode = "audit_write_failed" | "audit_closed" | "audit_outcome_failed" | "audit_intent_refused";

export class AuditError extends ClawhiveError {
  declare readonly code: AuditErrorCode;

  constructor(code: AuditErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: code === "audit_write_failed" ? 503 : code === "audit_intent_refused" ? 409 : 500, cause: options.cause });
  }
}
