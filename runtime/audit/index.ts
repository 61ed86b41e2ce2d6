/** The audit room: the append-only, hash-chained log of every ToolCall, host-proxy call and model call. */
export { openAuditLog, LibsqlAuditLog } from "./libsql-audit-log.js";
export type { AuditLogOptions } from "./libsql-audit-log.js";
export { withAudit } from "./with-audit.js";
export type { AuditedEffect } from "./with-audit.js";
export { auditMigrations } from "./schema.js";
export { MODEL_CALL_PROXY } from "./model-call.js";
export { PLUGIN_EVENT_PROXY } from "./plugin-event.js";
export { PATTERN_EVENT_PROXY } from "./pattern-event.js";
export { AuditError } from "./errors.js";
export type { AuditErrorCode } from "./errors.js";
export { canonicalJson } from "./json.js";
export { encodeCursor } from "./query.js";
export type { JsonValue } from "./json.js";
export { DEFAULT_SECRET_KEYS, MIN_REDACTED_LENGTH, REDACTED } from "./redact.js";
export type { RedactionOptions, RedactionSubject } from "./redact.js";
export type { GroupCommitStats } from "./group-commit.js";
export type {
  AuditDecision,
  AuditErrorInfo,
  AuditKind,
  AuditLog,
  AuditPage,
  AuditQuery,
  AuditRecord,
  AuditStatus,
  AuditSubject,
  ChainHead,
  Denial,
  DenialInput,
  HostCallRef,
  DeferredIntent,
  InFlightIntent,
  IntentGuard,
  IntentInput,
  ModelCallInput,
  ModelCallSummary,
  OutcomeInput,
  PatternEventInput,
  PatternEventSummary,
  PluginEventInput,
  PluginEventSummary,
  ToolCallRef,
  VerifyIssue,
  VerifyIssueKind,
  VerifyOptions,
  VerifyReport,
} from "./types.js";
