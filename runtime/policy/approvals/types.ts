import type { JsonValue } from "../../audit/index.js";
import type { Risk } from "../../plugins/manifest.js";

/**
 * `tool_call`: a Guarded ToolCall waits for a person. `effect`: one host call of an Unsafe tool
 * waits for a person (DESIGN: Policy).
 */
export type ApprovalKind = "tool_call" | "effect";

/**
 * `pending` → `approved` | `denied` | `expired`; `approved` → `used` (a `once` approval matched a
 * call) | `expired`. `denied` and `used` are final. Expiry is applied lazily, on read, with the
 * store's clock: a row may say `pending` on disk after its deadline, but no read reports it so.
 * `pending` | `approved` → `withdrawn`: the run ended (cancelled, failed) before the approval was
 * used; nothing can approve or use it any more. When the run ends, a `run`-scoped approval it used
 * (`approved`, use count > 0) becomes `used`, and one past its deadline `expired`.
 */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired" | "used" | "withdrawn";

/**
 * `once`: this call only (single use, bound to run, step, tool and arguments hash). `run`: every
 * later call of the tool in the run — only for `tool_call`; an effect is always `once`.
 */
export type ApprovalScope = "once" | "run";

export type ApprovalDecision = "approve" | "deny";

/**
 * One approval as stored. Times are epoch milliseconds (the injected clock's unit, as in the
 * store's `migrations.applied_at` and the audit log's `start_at`), never ISO strings.
 */
export interface Approval {
  readonly id: string;
  readonly kind: ApprovalKind;
  readonly status: ApprovalStatus;
  /** Set when decided; `once` for every effect. */
  readonly scope: ApprovalScope | null;
  readonly runId: string;
  readonly traceId: string;
  readonly agent: string;
  readonly parentRunId: string | null;
  readonly stepId: string;
  readonly toolCallId: string;
  /** `plugin.tool`, e.g. `files.write_file`. */
  readonly tool: string;
  /** The ToolCall's arguments, exactly what `argsHash` covers: what the person saw is what binds. */
  readonly input: JsonValue;
  readonly argsHash: string;
  /** Effects only: the capability the host call needs, e.g. `shell.exec`. */
  readonly capability: string | null;
  /** Effects only: the canonical host-call arguments (argv, URL…), exactly what `effectHash` covers. */
  readonly effect: JsonValue | null;
  readonly effectHash: string | null;
  readonly risk: Risk;
  /** Why approval is needed, for the person deciding. */
  readonly reason: string;
  /** The text that led to the call (the model's message, the task), when there is one. */
  readonly context: string | null;
  readonly createdAt: number;
  /** Pending: the deadline to decide. Approved: the deadline to use it (reset at approval). */
  readonly expiresAt: number;
  readonly decision: ApprovalDecision | null;
  readonly decidedBy: string | null;
  readonly decidedAt: number | null;
  readonly decisionReason: string | null;
  /** The last time a call matched it (the only time, for `once`). */
  readonly usedAt: number | null;
  /** How many calls it covered: 0 or 1 for `once`, any number for `run`. */
  readonly useCount: number;
  /**
   * The untrusted content the run's trace had read when the approval was asked for (mail, web
   * pages, calendars), e.g. `http GET https://…`, `gmail message <id>`: an instruction hidden
   * there may be why the call is asked for. Empty when nothing untrusted was read.
   */
  readonly untrustedSources: readonly string[];
  /**
   * The ToolCalls of the run's trace that read stored secrets when the approval was asked for
   * (by secret name, never value): what they returned may hold a secret changed beyond what
   * redaction catches, and this call's arguments may carry it on.
   */
  readonly secretsRead: readonly SecretReadEntry[];
}

/** A ToolCall that read stored secrets: their names. */
export interface SecretReadEntry {
  readonly toolCallId: string;
  readonly tool: string;
  readonly secrets: readonly string[];
}

interface RequestCommon {
  readonly runId: string;
  readonly traceId: string;
  readonly agent: string;
  readonly parentRunId?: string | null;
  readonly stepId: string;
  readonly toolCallId: string;
  /** `plugin.tool`. */
  readonly tool: string;
  /** The ToolCall's arguments; hashed here (canonical JSON, sha256) into `argsHash`. */
  readonly input: unknown;
  readonly risk: Risk;
  readonly reason: string;
  readonly context?: string | null;
  /** What untrusted content the run had read (see `Approval.untrustedSources`); capped when stored. */
  readonly untrustedSources?: readonly string[];
  /** Which ToolCalls had read secrets (see `Approval.secretsRead`); capped when stored. */
  readonly secretsRead?: readonly SecretReadEntry[];
  /** How long the request may wait for a decision (the agent's `approvals.expiry_minutes`); default: the store's. */
  readonly expiryMinutes?: number;
}

export interface ToolCallApprovalRequest extends RequestCommon {
  readonly kind: "tool_call";
}

export interface EffectApprovalRequest extends RequestCommon {
  readonly kind: "effect";
  readonly capability: string;
  /** The canonical host-call arguments the proxy will act on; hashed here into `effectHash`. */
  readonly effect: unknown;
}

/**
 * What `request` takes. The hashes are computed from `input` and `effect` here rather than passed
 * in, so the arguments shown to the person and the arguments the approval binds cannot differ.
 */
export type ApprovalRequestInput = ToolCallApprovalRequest | EffectApprovalRequest;

export interface DecideInput {
  readonly decision: ApprovalDecision;
  /** Default `once`. `run` only for `tool_call`. */
  readonly scope?: ApprovalScope;
  /** Who decided: a user id from the API/CLI, never the model. */
  readonly by: string;
  readonly reason?: string;
}

/** A ToolCall about to run; `argsHash` is `argsHash(arguments)`. */
export interface ToolCallMatch {
  readonly runId: string;
  readonly stepId: string;
  readonly tool: string;
  readonly argsHash: string;
}

/** A host call about to run; `effectHash` is `argsHash(canonical host-call arguments)`. */
export interface EffectMatch {
  readonly runId: string;
  readonly tool: string;
  readonly capability: string;
  readonly effectHash: string;
}

export type DeniedMatch = ({ readonly kind: "tool_call" } & ToolCallMatch) | ({ readonly kind: "effect" } & EffectMatch);

export interface ListApprovalsOptions {
  readonly status?: ApprovalStatus;
  readonly runId?: string;
  /** Default 100, at most 1000. */
  readonly limit?: number;
  /** Only approvals after this one in the list's order (a previous page's last), so every page comes from the whole store. */
  readonly before?: { readonly createdAt: number; readonly id: string };
}
