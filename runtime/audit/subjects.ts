/** What an audit record is about: its kind and status, the ToolCall or host call, a denial, an error. */
import type { JsonValue } from "./json.js";

/**
 * `model_call`: a prompt sent to an LLM provider (one record, written when the call ended).
 * `plugin`: a plugin install, upgrade or removal, allowed or refused, or a compiled build refused at load.
 */
export type AuditKind = "tool_call" | "host_call" | "model_call" | "plugin" | "approval_pattern";
/** `intent`: an allowed effect about to run; `ok`/`error`: its outcome; `denied`: refused, one record. */
export type AuditStatus = "intent" | "ok" | "error" | "denied";
export type AuditDecision = "allow" | "deny";

export interface ToolCallRef {
  readonly id: string;
  readonly name: string;
}

export interface HostCallRef {
  /** The proxy, e.g. `fs`, `http`. */
  readonly proxy: string;
  /** The proxy function, e.g. `read-file`. */
  readonly function: string;
}

export interface Denial {
  /** The capability that was missing, e.g. `fs.write`. */
  readonly capability: string;
  /** A stable reason code, e.g. `not_granted`, `approval_required`. */
  readonly reason: string;
  readonly message: string;
}

export interface AuditErrorInfo {
  readonly code: string;
  readonly message: string;
}

/** Who did what, where: the part an intent and a denial share. */
export interface AuditSubject {
  readonly kind: AuditKind;
  readonly traceId: string;
  readonly runId: string;
  readonly agent: string;
  readonly taskId?: string | null;
  readonly stepId?: string | null;
  readonly parentRunId?: string | null;
  readonly plugin?: string | null;
  readonly tool?: string | null;
  /** Required for `tool_call` records. */
  readonly toolCall?: ToolCallRef | null;
  /** Required for `host_call` records. */
  readonly hostCall?: HostCallRef | null;
  /** The canonical arguments (host call) or input (tool call). Redacted before storage. */
  readonly args?: JsonValue;
  readonly requestedCapabilities?: readonly JsonValue[];
  readonly grantedCapabilities?: readonly JsonValue[];
  readonly approvalRequired?: boolean;
  /** The policy room's word for it, e.g. `approved`, `rejected`, `expired`. */
  readonly approvalResult?: string | null;
}
