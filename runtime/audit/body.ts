import { InvalidInputError } from "../errors.js";
import { canonicalJson } from "./json.js";
import type { JsonValue } from "./json.js";
import type { Redactor } from "./redact.js";
import type { RecordBody } from "./schema.js";
import type { AuditRecord, AuditSubject, DenialInput, IntentInput, OutcomeInput } from "./types.js";

// Turns what a caller hands the audit log into the exact values stored and hashed: validated,
// redacted and capped here, once, before the writer sees them. An invalid input rejects the
// append — and so, fail closed, the effect.

export interface BodyContext {
  readonly redactor: Redactor;
  /** `clock.now()` at the append. */
  readonly at: number;
}

export function intentBody(input: IntentInput, context: BodyContext): RecordBody {
  return { ...subjectColumns(input, context), status: "intent", decision: "allow", start_at: context.at };
}

export function denialBody(input: DenialInput, context: BodyContext): RecordBody {
  const secrets = context.redactor.secrets();
  const { capability, reason, message } = input.denial ?? {};
  requireText("denial.capability", capability);
  requireText("denial.reason", reason);
  if (typeof message !== "string") throw invalid("denial.message", "must be a string");
  return {
    ...subjectColumns(input, context),
    status: "denied",
    decision: "deny",
    denial_capability: context.redactor.name(capability, secrets),
    denial_reason: context.redactor.name(reason, secrets),
    denial_message: context.redactor.text(message, secrets),
    start_at: context.at,
    end_at: context.at,
  };
}

/** An outcome repeats its intent's subject (already redacted) so each record stands alone. */
export function outcomeBody(intent: AuditRecord, outcome: OutcomeInput, context: BodyContext): RecordBody {
  if (intent.status !== "intent") throw invalid("intent", `record ${intent.seq} is a ${intent.status} record, not an intent`);
  if (outcome.status !== "ok" && outcome.status !== "error" && outcome.status !== "denied") throw invalid("status", "must be ok, error or denied");
  const refused = outcome.status === "denied" ? deniedColumns(outcome.denial, context) : undefined;
  const size = outcome.resultSize ?? null;
  if (size !== null && (!Number.isSafeInteger(size) || size < 0)) throw invalid("resultSize", "must be a non-negative integer");
  const secrets = context.redactor.secrets();
  const error = outcome.error ?? null;
  const summary = outcome.summary == null ? undefined : context.redactor.args(outcome.summary, { kind: intent.kind, proxy: intent.hostCall?.proxy ?? null, function: intent.hostCall?.function ?? null, tool: intent.tool }, secrets);
  return {
    ...EMPTY,
    kind: intent.kind,
    status: outcome.status,
    decision: refused ? "deny" : "allow",
    intent_seq: intent.seq,
    trace_id: intent.traceId,
    task_id: intent.taskId,
    run_id: intent.runId,
    step_id: intent.stepId,
    parent_run_id: intent.parentRunId,
    agent: intent.agent,
    plugin: intent.plugin,
    tool: intent.tool,
    tool_call_id: intent.toolCall?.id ?? null,
    tool_call_name: intent.toolCall?.name ?? null,
    proxy: intent.hostCall?.proxy ?? null,
    host_function: intent.hostCall?.function ?? null,
    args: summary?.text ?? null,
    args_bytes: summary?.bytes ?? null,
    args_truncated: summary?.truncated === true ? 1 : 0,
    requested_capabilities: canonicalJson(intent.requestedCapabilities),
    granted_capabilities: canonicalJson(intent.grantedCapabilities),
    approval_required: intent.approvalRequired ? 1 : 0,
    approval_result: intent.approvalResult,
    start_at: intent.startAt,
    end_at: context.at,
    error_code: error === null ? null : context.redactor.name(String(error.code), secrets),
    error_message: error === null ? null : context.redactor.text(String(error.message), secrets),
    result_size: size,
    ...refused,
  };
}

/**
 * The denial columns of an outcome the proxy refused after the policy allowed it (a symlink or
 * hard link met at the effect): a refusal, recorded as one, not as a failure.
 */
function deniedColumns(denial: OutcomeInput["denial"], context: BodyContext): Pick<RecordBody, "denial_capability" | "denial_reason" | "denial_message"> {
  const secrets = context.redactor.secrets();
  const { capability, reason, message } = denial ?? {};
  requireText("denial.capability", capability);
  requireText("denial.reason", reason);
  if (typeof message !== "string") throw invalid("denial.message", "must be a string");
  return {
    denial_capability: context.redactor.name(capability, secrets),
    denial_reason: context.redactor.name(reason, secrets),
    denial_message: context.redactor.text(message, secrets),
  };
}

/** Every column at its empty value; record builders spread it first. */
export const EMPTY: RecordBody = {
  kind: "host_call",
  status: "intent",
  decision: "allow",
  intent_seq: null,
  trace_id: "",
  task_id: null,
  run_id: "",
  step_id: null,
  parent_run_id: null,
  agent: "",
  plugin: null,
  tool: null,
  tool_call_id: null,
  tool_call_name: null,
  proxy: null,
  host_function: null,
  args: null,
  args_bytes: null,
  args_truncated: 0,
  requested_capabilities: "[]",
  granted_capabilities: "[]",
  approval_required: 0,
  approval_result: null,
  denial_capability: null,
  denial_reason: null,
  denial_message: null,
  start_at: 0,
  end_at: null,
  error_code: null,
  error_message: null,
  result_size: null,
};

function validateSubject(input: AuditSubject): void {
  if (input.kind !== "tool_call" && input.kind !== "host_call") throw invalid("kind", "must be tool_call or host_call");
  requireText("traceId", input.traceId);
  requireText("runId", input.runId);
  requireText("agent", input.agent);
  if (input.kind === "tool_call") {
    requireText("toolCall.id", input.toolCall?.id);
    requireText("toolCall.name", input.toolCall?.name);
  } else {
    requireText("hostCall.proxy", input.hostCall?.proxy);
    requireText("hostCall.function", input.hostCall?.function);
  }
}

function subjectColumns(input: AuditSubject, context: BodyContext): RecordBody {
  validateSubject(input);
  const { redactor } = context;
  const secrets = redactor.secrets();
  const name = (value: string | null | undefined): string | null => (value == null ? null : redactor.name(value, secrets));
  const subject = {
    kind: input.kind,
    proxy: input.hostCall?.proxy ?? null,
    function: input.hostCall?.function ?? null,
    tool: input.tool ?? null,
  };
  const args = input.args === undefined ? null : redactor.args(input.args, subject, secrets);
  return {
    ...EMPTY,
    kind: input.kind,
    ...runColumns(input, redactor, secrets),
    plugin: name(input.plugin),
    tool: name(input.tool),
    tool_call_id: name(input.toolCall?.id),
    tool_call_name: name(input.toolCall?.name),
    proxy: name(input.hostCall?.proxy),
    host_function: name(input.hostCall?.function),
    args: args?.text ?? null,
    args_bytes: args?.bytes ?? null,
    args_truncated: args?.truncated === true ? 1 : 0,
    requested_capabilities: redactor.json(capabilities("requestedCapabilities", input.requestedCapabilities), secrets),
    granted_capabilities: redactor.json(capabilities("grantedCapabilities", input.grantedCapabilities), secrets),
    approval_required: input.approvalRequired === true ? 1 : 0,
    approval_result: name(input.approvalResult),
  };
}

/** Where a record belongs (trace, task, run, step, parent run, agent), as every kind stores it. */
export function runColumns(
  input: { traceId: string; taskId?: string | null; runId: string; stepId?: string | null; parentRunId?: string | null; agent: string },
  redactor: Redactor,
  secrets: readonly string[],
): Pick<RecordBody, "trace_id" | "task_id" | "run_id" | "step_id" | "parent_run_id" | "agent"> {
  const name = (value: string | null | undefined): string | null => (value == null ? null : redactor.name(value, secrets));
  return {
    trace_id: redactor.name(input.traceId, secrets),
    task_id: name(input.taskId),
    run_id: redactor.name(input.runId, secrets),
    step_id: name(input.stepId),
    parent_run_id: name(input.parentRunId),
    agent: redactor.name(input.agent, secrets),
  };
}

function capabilities(field: string, value: readonly JsonValue[] | undefined): JsonValue {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(field, "must be an array");
  return value;
}

export function requireText(field: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value === "") throw invalid(field, "must be a non-empty string");
}

export function invalid(field: string, reason: string): InvalidInputError {
  return new InvalidInputError(`audit record ${field}: ${reason}`, { field });
}
