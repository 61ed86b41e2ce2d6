import * as v from "valibot";
import { ANY_JSON, DenialSchema, EPOCH_MS, ISO_TIME, NEXT_CURSOR } from "./common.js";

export const ToolCallErrorSchema = v.strictObject({
  kind: v.pipe(v.string(), v.description("the tool's error case (denied, invalid-input, not-found, failed) or the sandbox's (trapped, deadline, memory-cap, …)")),
  message: v.string(),
  denial: v.optional(DenialSchema),
});

export const ApprovalNeededSchema = v.strictObject({
  id: v.string(),
  kind: v.picklist(["tool_call", "effect"]),
  tool: v.string(),
  reason: v.string(),
  expires_at: EPOCH_MS,
});

const outcomeBase = { id: v.string(), tool: v.string(), step_id: v.string(), duration_ms: v.number() };

/** One ToolCall's outcome. */
export const OutcomeSchema = v.variant("status", [
  v.strictObject({
    ...outcomeBase,
    status: v.literal("ok"),
    output: v.optional(ANY_JSON),
    output_bytes: v.pipe(
      v.optional(v.number()),
      v.description("in a list of runs, an output larger than 64 KiB is left out and its size given here: GET /v1/runs/:id has it whole"),
    ),
  }),
  v.strictObject({ ...outcomeBase, status: v.literal("error"), error: ToolCallErrorSchema }),
  v.strictObject({ ...outcomeBase, status: v.literal("approval_required"), approval: ApprovalNeededSchema }),
]);

/** A run's least-privilege report: granted against used, denials, approvals. */
export const ReportSchema = v.strictObject({
  granted: v.array(v.string()),
  used: v.array(v.string()),
  unused: v.pipe(v.array(v.string()), v.description("granted but never used: candidates for narrowing")),
  denials: v.array(v.strictObject({ capability: v.string(), reason: v.string(), count: v.number(), example: v.string() })),
  approvals: v.array(v.strictObject({ id: v.string(), kind: v.string(), tool: v.string(), outcome: v.string() })),
  tool_calls: v.strictObject({ total: v.number(), ok: v.number(), error: v.number(), denied: v.pipe(v.optional(v.number()), v.description("of the errors, those a policy or a person refused")), approval_required: v.number() }),
  secrets_read: v.pipe(
    v.optional(v.array(v.strictObject({ tool_call_id: v.string(), tool: v.string(), secrets: v.array(v.string()) }))),
    v.description("the ToolCalls that read stored secrets (a plugin's config, an MCP server's environment), by secret name; absent in reports stored before it was kept"),
  ),
});

export const RunSchema = v.strictObject({
  id: v.string(),
  trace_id: v.pipe(v.string(), v.description("the W3C trace id (32 hex digits) of the run's spans and audit records")),
  task_id: v.string(),
  parent_run_id: v.nullable(v.string()),
  agent: v.string(),
  task: v.nullable(v.string()),
  status: v.picklist(["active", "awaiting_approval", "ended"]),
  end_reason: v.nullable(v.picklist(["completed", "cancelled", "failed"])),
  created_at: ISO_TIME,
  ended_at: v.nullable(ISO_TIME),
  pending_approval: v.nullable(v.strictObject({ id: v.string(), tool: v.string(), step_id: v.string(), sub_agent_run_id: v.optional(v.string()) })),
  tool_calls: v.pipe(v.nullable(v.number()), v.description("the number of explicit tool calls; null when the model drives the run")),
  outcomes: v.array(OutcomeSchema),
  conversation_id: v.nullable(v.string()),
  result: v.pipe(v.nullable(v.string()), v.description("a model-driven run's final answer")),
  report: v.nullable(ReportSchema),
});

export const RunBody = v.strictObject({ run: RunSchema });
/** POST /v1/runs/:id/resume: the run now, and the outcome of the call it replayed (a run without a plan). */
export const ResumedBody = v.strictObject({ run: RunSchema, outcome: v.optional(OutcomeSchema) });
/** GET /v1/runs/:id/todo: the list the run's model keeps (runtime/todo). */
export const TodoBody = v.strictObject({
  run_id: v.string(),
  scope: v.string(),
  items: v.array(v.strictObject({ id: v.string(), text: v.string(), status: v.picklist(["pending", "in_progress", "done"]) })),
  done: v.number(),
  updated_at: v.nullable(ISO_TIME),
  updated_by_run: v.nullable(v.string()),
});
export const RunPage = v.strictObject({ runs: v.array(RunSchema), next_cursor: NEXT_CURSOR });

/** A message's content: text, a ToolCall the model asked for, or its result. */
export const ContentBlockSchema = v.variant("type", [
  v.strictObject({ type: v.literal("text"), text: v.string() }),
  v.strictObject({ type: v.literal("tool_use"), id: v.string(), name: v.string(), input: v.record(v.string(), v.unknown()), input_error: v.optional(v.string()), raw_input: v.optional(v.string()) }),
  v.strictObject({ type: v.literal("tool_result"), tool_use_id: v.string(), content: v.string(), is_error: v.boolean() }),
]);

export const ConversationBody = v.strictObject({
  conversation: v.strictObject({
    id: v.string(),
    agent: v.string(),
    created_at: ISO_TIME,
    updated_at: ISO_TIME,
    messages: v.array(v.strictObject({ seq: v.number(), run_id: v.nullable(v.string()), role: v.picklist(["user", "assistant"]), content: v.array(ContentBlockSchema), at: ISO_TIME })),
  }),
});

/** One compaction of a conversation: the summary standing in for messages `from_seq`..`through_seq`. */
export const CompactionSchema = v.strictObject({
  n: v.pipe(v.number(), v.description("its number in the conversation, from 1")),
  status: v.pipe(v.picklist(["active", "undone"]), v.description("active: the model sees the summary in place of the messages; undone: the messages again")),
  from_seq: v.number(),
  through_seq: v.number(),
  turns: v.number(),
  summary: v.string(),
  run_id: v.pipe(v.string(), v.description("the run during which the agent's model wrote it")),
  step_id: v.string(),
  model: v.string(),
  tokens_before: v.pipe(v.number(), v.description("tokens of the messages it replaces (o200k)")),
  tokens_after: v.pipe(v.number(), v.description("tokens of the summary")),
  created_at: ISO_TIME,
  undone_at: v.nullable(ISO_TIME),
  undone_by: v.nullable(v.string()),
});

export const CompactionList = v.strictObject({ conversation_id: v.string(), compactions: v.array(CompactionSchema) });
export const CompactionBody = v.strictObject({ compaction: CompactionSchema });
