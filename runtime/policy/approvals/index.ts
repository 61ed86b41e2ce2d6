/**
 * The approvals room: people's decisions on Guarded ToolCalls and Unsafe effects, bound to the
 * exact call, single use or for the run, expiring by the injected clock.
 */
export { ApprovalStore } from "./approval-store.js";
export type { ApprovalStoreOptions } from "./approval-store.js";
export { approvalMigrations } from "./schema.js";
export { argsHash } from "./hash.js";
export { ApprovalError } from "./errors.js";
export { MAX_APPROVAL_ARGS_BYTES, MAX_APPROVAL_CONTEXT_BYTES } from "./request.js";
export type { ApprovalErrorCode } from "./errors.js";
export type {
  Approval,
  ApprovalDecision,
  ApprovalKind,
  ApprovalRequestInput,
  ApprovalScope,
  ApprovalStatus,
  DecideInput,
  DeniedMatch,
  EffectApprovalRequest,
  EffectMatch,
  ListApprovalsOptions,
  ToolCallApprovalRequest,
  ToolCallMatch,
} from "./types.js";
export { patternChoices, summarise, checkWithinGrant, MAX_PATTERN_MS, DURATION_FORMS, durationExpiry, serverZone } from "./patterns/index.js";
export type { PatternExpiry } from "./patterns/index.js";
export type { ApprovalPattern, ListPatternsOptions, PatternChoice, PatternMatch, PatternSpec, PatternStatus } from "./patterns/index.js";
export type { ApprovePatternInput } from "./patterns/approve.js";
