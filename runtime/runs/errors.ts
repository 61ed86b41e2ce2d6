import { ClawhiveError } from "../errors.js";
import type { CommittedEffect, EffectMade } from "./effects.js";
import type { ToolCallOutcome } from "./types.js";

export type { CommittedEffect } from "./effects.js";

/**
 * The store failed after the run made effects, and even the run's failure could not be
 * recorded. The effects happened (each one's intent is in the audit log): a client that read a
 * plain `store_failed` and retried would make them twice. `details` names them with their
 * ToolCalls' outcomes.
 */
export class EffectCommittedError extends ClawhiveError {
  readonly details: { run_id: string; effects: CommittedEffect[] };

  constructor(runId: string, effects: CommittedEffect[], options: { cause?: unknown } = {}) {
    const named = effects.map((e) => `${e.capability} by ${e.tool} (${e.tool_call_id})`).join(", ");
    super(
      "effect_committed_store_failed",
      `run ${runId}: the store failed after the run made ${effects.length === 1 ? "an effect" : `${effects.length} effects`} (${named}): ` +
        `they happened and their intents are in the audit log, but the run's outcome could not be recorded; ` +
        `do not submit it again — check what was done ('clawhive audit tail --run ${runId}') once the store is writable`,
      { status: 500, cause: options.cause },
    );
    this.details = { run_id: runId, effects };
  }
}

/**
 * The store failed during a run that made no effect, and the run's failure could not be
 * recorded: nothing happened outside, so submitting it again is safe once the store is back.
 */
export class RunStoreFailedError extends ClawhiveError {
  readonly details: { run_id: string; effects: [] };

  constructor(runId: string, options: { cause?: unknown } = {}) {
    const why = options.cause instanceof Error ? `: ${options.cause.message}` : "";
    super("run_store_failed", `run ${runId}: the store failed and the run's end could not be recorded${why}; the run made no effect, so it is safe to submit again once the store is back`, {
      status: 503,
      cause: options.cause,
    });
    this.details = { run_id: runId, effects: [] };
  }
}

/** The answer for a run whose end could not be recorded: which of the two errors above. */
export function storeFailedAfter(run: { id: string; effects: readonly EffectMade[]; committed(): CommittedEffect[] }, cause: unknown): ClawhiveError {
  return run.effects.length > 0 ? new EffectCommittedError(run.id, run.committed(), { cause }) : new RunStoreFailedError(run.id, { cause });
}

/**
 * A ToolCall whose records the audit log refused: whoever drives the run stops it (failed,
 * `audit_write_failed`) rather than go on unaudited, or fail call after call.
 */
export function stopOnAuditFailure(outcome: ToolCallOutcome): void {
  if (outcome.status === "error" && outcome.error.kind === "audit-failed") {
    throw new ClawhiveError("audit_write_failed", `${outcome.tool} (${outcome.id}): ${outcome.error.message}`);
  }
}

/** The code and message a run's `finish` Step and result carry for an error that escaped a Step. */
export function failureOf(error: unknown): { code: string; message: string } {
  if (error instanceof ClawhiveError) return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: "runtime_error", message };
}
