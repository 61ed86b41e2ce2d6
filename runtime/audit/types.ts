import type { JsonValue } from "./json.js";
import type { Statement } from "../store/index.js";
import type { AuditDecision, AuditErrorInfo, AuditKind, AuditStatus, Denial, HostCallRef, ToolCallRef } from "./subjects.js";
import type { DenialInput, IntentInput, ModelCallInput, ModelCallSummary, OutcomeInput, PatternEventInput, PatternEventSummary, PluginEventInput, PluginEventSummary } from "./inputs.js";

export type * from "./subjects.js";
export type * from "./inputs.js";

export interface AuditRecord {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
  readonly kind: AuditKind;
  readonly status: AuditStatus;
  readonly decision: AuditDecision;
  /** On an outcome: the seq of its intent. */
  readonly intentSeq: number | null;
  readonly traceId: string;
  readonly taskId: string | null;
  readonly runId: string;
  readonly stepId: string | null;
  readonly parentRunId: string | null;
  readonly agent: string;
  readonly plugin: string | null;
  readonly tool: string | null;
  readonly toolCall: ToolCallRef | null;
  readonly hostCall: HostCallRef | null;
  /** Canonical JSON of the redacted arguments; only a prefix of it when `argsTruncated`. */
  readonly args: string | null;
  readonly argsBytes: number | null;
  readonly argsTruncated: boolean;
  readonly requestedCapabilities: readonly JsonValue[];
  readonly grantedCapabilities: readonly JsonValue[];
  readonly approvalRequired: boolean;
  readonly approvalResult: string | null;
  readonly denial: Denial | null;
  /** Milliseconds since the epoch; an outcome keeps its intent's start. */
  readonly startAt: number;
  readonly endAt: number | null;
  readonly error: AuditErrorInfo | null;
  readonly resultSize: number | null;
  /** On a `model_call` record: its arguments, parsed (null on other kinds, or if unreadable). */
  readonly modelCall: ModelCallSummary | null;
  /** On a `plugin` record: its arguments, parsed (null on other kinds, or if unreadable). */
  readonly pluginEvent: PluginEventSummary | null;
  /** On an `approval_pattern` record: its arguments, parsed (null on other kinds, or if unreadable). */
  readonly patternEvent: PatternEventSummary | null;
}

export interface AuditQuery {
  readonly traceId?: string;
  readonly runId?: string;
  readonly agent?: string;
  readonly tool?: string;
  readonly kind?: AuditKind;
  readonly status?: AuditStatus | readonly AuditStatus[];
  /** The outcome of one intent. */
  readonly intentSeq?: number;
  /** `startAt >= since` (ms). */
  readonly since?: number;
  /** `startAt < until` (ms). */
  readonly until?: number;
  /** Default 100, at most 1000. */
  readonly limit?: number;
  /** From a previous page's `nextCursor`, with the same filters and order. */
  readonly cursor?: string;
  /** Chain order (`asc`, default) or newest first (`desc`). */
  readonly order?: "asc" | "desc";
}

export interface AuditPage {
  readonly records: readonly AuditRecord[];
  /** Null on the last page. */
  readonly nextCursor: string | null;
}

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export type VerifyIssueKind =
  /** The record's stored hash does not match its content: a field was changed. */
  | "altered"
  /** The record's prev_hash is not the previous record's hash: a record was inserted or reordered. */
  | "broken_link"
  /** Seqs jump here: records before this one were deleted. */
  | "missing"
  /** An outcome names no earlier, still-open intent. */
  | "orphan_outcome"
  /** The chain does not end at the head the caller recorded earlier: records were cut off. */
  | "head_mismatch";

export interface VerifyIssue {
  readonly seq: number;
  readonly kind: VerifyIssueKind;
  readonly detail: string;
}

/** An intent with no outcome: the effect was in flight when the process stopped (or still is). */
export interface InFlightIntent {
  readonly seq: number;
  readonly runId: string;
  readonly traceId: string;
  readonly tool: string | null;
  readonly hostCall: HostCallRef | null;
  readonly startAt: number;
}

export interface VerifyReport {
  /** True when no record was altered, unlinked, deleted or cut off. In-flight intents do not count. */
  readonly ok: boolean;
  readonly records: number;
  readonly head: ChainHead | null;
  readonly issues: readonly VerifyIssue[];
  readonly inFlight: readonly InFlightIntent[];
}

export interface VerifyOptions {
  /** A head recorded earlier (e.g. exported off-box): detects records cut from the end. */
  readonly expectedHead?: ChainHead;
}

/**
 * The audit log of every ToolCall, host-proxy call and model call, allowed or denied.
 *
 * **Fail closed.** `appendIntent()` resolves only once the intent is durable (committed). If it
 * rejects — a store failure, a closed log, invalid input — the caller MUST NOT run the effect:
 * an effect without a durable intent is an unaudited effect. `withAudit()` enforces this order.
 *
 * An allowed effect: `appendIntent()` → effect → `appendOutcome()`. A denial: `appendDenial()`,
 * one record, no effect. Records are append-only and hash-chained in one linear order, even with
 * many concurrent appenders and several processes on one store.
 */
/**
 * A condition committed in the same transaction as an intent (fencing): `statement` runs first
 * and fails when the effect may no longer be made (its run was cancelled, ended, or another
 * node holds it now); the intent is then not written and `appendIntent` rejects with
 * `audit_intent_refused`. `refused` tells that failure from any other of the store.
 */
export interface IntentGuard {
  readonly statement: Statement;
  refused(error: unknown): boolean;
}

/** See `AuditLog.deferIntent`. */
export interface DeferredIntent {
  /** Starts its write if it is still waiting; resolves with the written record, rejects if it failed. */
  ensure(): Promise<AuditRecord>;
}

export interface AuditLog {
  /** Durable before it resolves; on rejection the effect must not run. */
  appendIntent(intent: IntentInput, options?: { guard?: IntentGuard }): Promise<AuditRecord>;
  /**
   * An intent that is written with the next commit rather than one of its own: `ensure()` before
   * anything it stands for has an effect (it resolves once the intent is durable). Its outcome
   * may be appended before it is written: both then go in one commit. For a ToolCall, whose
   * effects are host calls with intents of their own, a call that made none costs one commit.
   */
  deferIntent(intent: IntentInput): DeferredIntent;
  /**
   * Records how the effect of `intent` ended; call it exactly once per intent. `defer`: no write
   * is started for it (as `deferIntent`): the next commit takes it along, or one starts after a
   * few ms. A read's records go so, off the guest's path; whoever releases the ToolCall's result
   * awaits them first.
   */
  appendOutcome(intent: AuditRecord | DeferredIntent, outcome: OutcomeInput, options?: { defer?: boolean }): Promise<AuditRecord>;
  appendDenial(denial: DenialInput): Promise<AuditRecord>;
  /**
   * Records a model call that has ended, as one record, deferred: it is written with the next
   * append that starts a commit (the Step's ToolCall), by `flush()`, or after a few ms on its own.
   * A caller on a hot path leaves it unawaited and flushes before reporting a result that rests
   * on the call.
   */
  appendModelCall(call: ModelCallInput): Promise<AuditRecord>;
  /** Records a plugin install, upgrade, removal or refused load as one record; durable before it resolves. */
  appendPluginEvent(event: PluginEventInput): Promise<AuditRecord>;
  /** Records a pattern approval created or revoked as one record; durable before it resolves. */
  appendPatternEvent(event: PatternEventInput): Promise<AuditRecord>;
  /** Resolves once every record appended before the call is written (or its batch failed). */
  flush(): Promise<void>;
  /** Sees every record this log appended before the call (it flushes first). */
  query(query?: AuditQuery): Promise<AuditPage>;
  /** Walks the whole chain: altered, unlinked and missing records, and intents without outcome. */
  verify(options?: VerifyOptions): Promise<VerifyReport>;
  /** Waits for pending appends, then refuses new ones. Does not close the store. */
  close(): Promise<void>;
}
