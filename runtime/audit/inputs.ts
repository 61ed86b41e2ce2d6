/** What a writer hands the audit log: an intent, a denial, an outcome, a model call, a plugin event. */
import type { JsonValue } from "./json.js";
import type { AuditErrorInfo, AuditSubject, Denial } from "./subjects.js";

export type IntentInput = AuditSubject;

export interface DenialInput extends AuditSubject {
  readonly denial: Denial;
}

export interface OutcomeInput {
  /** `denied`: the policy allowed the call, the proxy then refused it (e.g. a symlink met at the effect). */
  readonly status: "ok" | "error" | "denied";
  /** Required with `denied`. */
  readonly denial?: Denial | null;
  readonly error?: AuditErrorInfo | null;
  /** Bytes of the result handed back (after serialisation). */
  readonly resultSize?: number | null;
  /**
   * What the result held, for a call whose result is more than a size: a walk's or search's
   * counts and the files whose content it returned. Stored (redacted and capped like
   * arguments) in the outcome's `args`, so the one record names what the operation did.
   */
  readonly summary?: JsonValue | null;
}

/**
 * A model call that has ended: the prompt left the machine, so it is an outbound effect. Only its
 * shape is recorded — counts, names and usage, never a message's content (prompts carry mail,
 * documents, tool results and secrets): there is no field here that could hold it.
 */
export interface ModelCallInput {
  readonly traceId: string;
  readonly runId: string;
  readonly agent: string;
  readonly taskId?: string | null;
  readonly stepId?: string | null;
  readonly parentRunId?: string | null;
  /** The provider's API, e.g. `anthropic`, `openai`: stored as host_function under proxy `llm`. */
  readonly provider: string;
  /** The model id asked for. */
  readonly model: string;
  /** The provider's base URL; only its host (and port) is stored, never a path, query or credential. */
  readonly baseUrl?: string | null;
  /** Messages sent (the system prompt not counted). */
  readonly messages: number;
  /** The names of the tools offered to the model. */
  readonly tools: readonly string[];
  readonly maxTokens: number;
  /** Usage the provider reported; null when the call failed. */
  readonly inputTokens?: number | null;
  readonly outputTokens?: number | null;
  readonly stopReason?: string | null;
  /** HTTP attempts made, retries included (0 when the call failed before any request). */
  readonly attempts: number;
  /** When the call started (ms); it ends at the append. */
  readonly startAt: number;
  readonly status: "ok" | "error";
  /** On error: e.g. `rate_limited`, `timeout`, `cancelled`, `unavailable`. */
  readonly error?: AuditErrorInfo | null;
}

/** A model_call record's arguments, parsed back from the stored JSON. */
export interface ModelCallSummary {
  readonly model: string;
  readonly baseUrl: string | null;
  readonly messages: number;
  readonly tools: readonly string[];
  readonly maxTokens: number;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly stopReason: string | null;
  readonly attempts: number;
}

/**
 * A change to the code a node may run, allowed or refused: one `plugin` record. Refusals carry
 * the stable code of the error that refused (`blob_tampered`, `imports_not_declared`,
 * `plugin_name_similar`, `upgrade_needs_acceptance`, `artifact_tampered`, …) as `reason`.
 */
export interface PluginEventInput {
  /** `trust` and `revoke` are a publisher key's (name `key:<id>`, publisher the key's, origin its public key). */
  readonly action: "install" | "upgrade" | "remove" | "load" | "trust" | "revoke";
  readonly decision: "allow" | "deny";
  /** The plugin's name (the installed one's for a removal; as far as it was read for a refusal). */
  readonly name: string;
  readonly version?: string | null;
  readonly sha256?: string | null;
  readonly publisher?: string | null;
  /** Where the package came from (a path or URL). */
  readonly origin?: string | null;
  /** Who asked: `token:<id>` (API), `cli:<user>` (CLI), `runtime` (its own plugins, loads). */
  readonly by: string;
  /** `installed`, `upgraded`, `removed`, or the refusing error's code. */
  readonly reason: string;
  /** The refusal's message. */
  readonly message?: string | null;
}

/**
 * A standing pattern approval given (`create`) or taken back (`revoke`): one `approval_pattern`
 * record. A refused creation writes none: nothing was granted and the approval stays pending.
 */
export interface PatternEventInput {
  /** `withdraw`: its run ended, and the pattern (`applies_to: run`) with it. */
  readonly action: "create" | "revoke" | "withdraw";
  /** The pattern's id (`apt_…`). */
  readonly id: string;
  readonly agent: string;
  readonly kind: "tool_call" | "effect";
  readonly tool: string;
  readonly capability?: string | null;
  /** Field path → glob. */
  readonly arguments: Readonly<Record<string, string>>;
  /** Set: the pattern serves this run only; null: every run of the agent. */
  readonly runId?: string | null;
  readonly approvalId?: string | null;
  /** Epoch ms. */
  readonly expiresAt: number;
  /** Who created or revoked it. */
  readonly by: string;
}

/** A pattern record's arguments, parsed back from the stored JSON. */
export interface PatternEventSummary {
  readonly action: string;
  readonly id: string;
  readonly agent: string;
  readonly tool: string;
  readonly capability: string | null;
  readonly arguments: Readonly<Record<string, string>>;
  /** `run` or `agent`. */
  readonly appliesTo: string;
  readonly runId: string | null;
  readonly approvalId: string | null;
  /** ISO time. */
  readonly expiresAt: string;
  readonly by: string;
}

/** A plugin record's arguments, parsed back from the stored JSON. */
export interface PluginEventSummary {
  readonly action: string;
  readonly name: string;
  readonly version: string | null;
  readonly sha256: string | null;
  readonly publisher: string | null;
  readonly origin: string | null;
  readonly by: string;
  readonly reason: string;
}

/** A durable record, as stored (already redacted). `seq` is its id and its place in the chain. */
