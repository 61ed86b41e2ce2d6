import type { ToolCallOutcome } from "./types.js";

/** What a client is told of an effect that happened before the store failed. */
export interface CommittedEffect {
  tool_call_id: string;
  tool: string;
  capability: string;
  /** The ToolCall's outcome as the run saw it (`ok` with its output, or `error`), or null while it had none. */
  outcome: unknown;
}

/** An effect a run made: a host call above Safe that reached its proxy (its intent is on record). */
export interface EffectMade {
  toolCallId: string;
  tool: string;
  capability: string;
}

/**
 * The effects a run has made and the outcomes of the ToolCalls that made them: what the run's
 * caller is told when the store fails after them, so an answer never hides an effect.
 */
export class EffectLedger {
  readonly #effects: EffectMade[] = [];
  readonly #outcomes = new Map<string, ToolCallOutcome>();

  get list(): readonly EffectMade[] {
    return this.#effects;
  }

  add(effect: EffectMade): void {
    this.#effects.push(effect);
  }

  /** Keeps a finished ToolCall's outcome when the call made an effect. */
  finished(outcome: ToolCallOutcome): void {
    if (this.#effects.some((e) => e.toolCallId === outcome.id)) this.#outcomes.set(outcome.id, outcome);
  }

  /** `; effects already made: …` for a failed run's result, or "" when there were none. */
  summary(): string {
    return this.#effects.length === 0 ? "" : `; effects already made: ${this.#effects.map((e) => `${e.capability} by ${e.tool} (${e.toolCallId})`).join(", ")}`;
  }

  /** The effects with their ToolCalls' outcomes, as a client is told of them. */
  committed(): CommittedEffect[] {
    return this.#effects.map((e) => {
      const outcome = this.#outcomes.get(e.toolCallId);
      const shown = outcome === undefined ? null : outcome.status === "ok" ? { status: "ok", output: outcome.output } : outcome.status === "error" ? { status: "error", error: outcome.error } : { status: outcome.status };
      return { tool_call_id: e.toolCallId, tool: e.tool, capability: e.capability, outcome: shown };
    });
  }
}
