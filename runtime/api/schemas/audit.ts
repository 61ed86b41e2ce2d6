import * as v from "valibot";
import { ANY_JSON, DenialSchema, EPOCH_MS, NEXT_CURSOR } from "./common.js";

const HostCallRef = v.strictObject({ proxy: v.string(), function: v.string() });
const ErrorInfo = v.strictObject({ code: v.string(), message: v.string() });

/** One audit record, as stored (already redacted); `seq` is its place in the hash chain. */
export const AuditRecordSchema = v.strictObject({
  seq: v.number(),
  prev_hash: v.string(),
  hash: v.string(),
  kind: v.picklist(["tool_call", "host_call", "model_call", "plugin", "approval_pattern"]),
  status: v.picklist(["intent", "ok", "error", "denied"]),
  decision: v.picklist(["allow", "deny"]),
  intent_seq: v.nullable(v.number()),
  trace_id: v.string(),
  task_id: v.nullable(v.string()),
  run_id: v.string(),
  step_id: v.nullable(v.string()),
  parent_run_id: v.nullable(v.string()),
  agent: v.string(),
  plugin: v.nullable(v.string()),
  tool: v.nullable(v.string()),
  tool_call: v.nullable(v.strictObject({ id: v.string(), name: v.string() })),
  host_call: v.nullable(HostCallRef),
  args: v.pipe(v.nullable(v.string()), v.description("canonical JSON of the redacted arguments; a prefix when args_truncated")),
  args_bytes: v.nullable(v.number()),
  args_truncated: v.boolean(),
  requested_capabilities: v.array(ANY_JSON),
  granted_capabilities: v.array(ANY_JSON),
  approval_required: v.boolean(),
  approval_result: v.nullable(v.string()),
  denial: v.nullable(DenialSchema),
  start_at: EPOCH_MS,
  end_at: v.nullable(EPOCH_MS),
  error: v.nullable(ErrorInfo),
  result_size: v.nullable(v.number()),
  model_call: v.nullable(
    v.strictObject({
      model: v.string(),
      base_url: v.nullable(v.string()),
      messages: v.number(),
      tools: v.array(v.string()),
      max_tokens: v.number(),
      input_tokens: v.nullable(v.number()),
      output_tokens: v.nullable(v.number()),
      stop_reason: v.nullable(v.string()),
      attempts: v.number(),
    }),
  ),
  plugin_event: v.nullable(
    v.strictObject({
      action: v.string(),
      name: v.string(),
      version: v.nullable(v.string()),
      sha256: v.nullable(v.string()),
      publisher: v.nullable(v.string()),
      origin: v.nullable(v.string()),
      by: v.string(),
      reason: v.string(),
    }),
  ),
  pattern_event: v.nullable(
    v.strictObject({
      action: v.string(),
      id: v.string(),
      agent: v.string(),
      tool: v.string(),
      capability: v.nullable(v.string()),
      arguments: v.record(v.string(), v.string()),
      applies_to: v.string(),
      run_id: v.nullable(v.string()),
      approval_id: v.nullable(v.string()),
      expires_at: v.string(),
      by: v.string(),
    }),
  ),
});

export const AuditPage = v.strictObject({ records: v.array(AuditRecordSchema), next_cursor: NEXT_CURSOR });
export const AuditRecordBody = v.strictObject({ record: AuditRecordSchema });

export const VerifyBody = v.strictObject({
  ok: v.pipe(v.boolean(), v.description("false when the log was altered, unlinked, cut or had records deleted")),
  records: v.number(),
  head: v.nullable(v.strictObject({ seq: v.number(), hash: v.string() })),
  issues: v.array(v.strictObject({ seq: v.number(), kind: v.picklist(["altered", "broken_link", "missing", "orphan_outcome", "head_mismatch"]), detail: v.string() })),
  in_flight: v.array(v.strictObject({ seq: v.number(), run_id: v.string(), trace_id: v.string(), tool: v.nullable(v.string()), host_call: v.nullable(HostCallRef), start_at: EPOCH_MS })),
});
