/**
 * ToolCalls the loop refuses before any tool runs — a tool or sub-agent the run does not have,
 * arguments that are not a JSON object, calls past the turn's limit, a call repeated unchanged — each written to the audit
 * log as a `tool_call` denial, so every refusal is on record, not only the ones the policy made.
 */
import type { AuditLog } from "../../audit/index.js";
import type { ContentBlock, ToolUseBlock } from "../../llm/index.js";
import type { Denial } from "../../../host-proxies/types.js";
import type { Run } from "../run.js";

/** A model-chosen name is kept to this many characters in the record. */
const NAME_CHARS = 200;
/** The model's unparsable arguments are kept to this many characters in the record. */
const RAW_CHARS = 2000;

export const LOOP_DENIAL_REASONS = {
  unknownTool: "unknown-tool",
  invalidInput: "invalid-input",
  tooManyToolCalls: "too-many-tool-calls",
  repeatedCall: "repeated-call",
} as const;

/** Records one refused ToolCall of `stepId` (its input, or what the model sent when unparsable). */
export async function auditRefusedCall(audit: AuditLog, run: Run, refused: { stepId: string; use: ToolUseBlock; denial: Denial }): Promise<void> {
  const { use } = refused;
  const name = use.name.slice(0, NAME_CHARS);
  const args = use.input_error !== undefined ? { raw_input: (use.raw_input ?? "").slice(0, RAW_CHARS), input_error: use.input_error.slice(0, RAW_CHARS) } : use.input;
  await audit.appendDenial({ ...subject(run, refused.stepId), toolCall: { id: use.id.slice(0, NAME_CHARS), name }, tool: name, args: args as never, denial: refused.denial });
}

/** Records, once, the ToolCalls of a turn past `limit` that were not run. */
export async function auditDroppedCalls(audit: AuditLog, run: Run, dropped: { stepId: string; asked: number; limit: number; uses: readonly ToolUseBlock[] }): Promise<Denial> {
  const denial: Denial = {
    capability: "tool",
    reason: LOOP_DENIAL_REASONS.tooManyToolCalls,
    message: `the model asked for ${dropped.asked} tool calls in one turn; only the first ${dropped.limit} ran (limits.max_tool_calls_per_turn)`,
  };
  const first = dropped.uses[0]!;
  // The names of the first few dropped calls, enough to see what was asked without storing all of it.
  const names = dropped.uses.slice(0, 20).map((u) => u.name.slice(0, NAME_CHARS));
  await audit.appendDenial({
    ...subject(run, dropped.stepId),
    toolCall: { id: first.id.slice(0, NAME_CHARS), name: `${dropped.uses.length} tool calls past the limit` },
    tool: null,
    args: { asked: dropped.asked, limit: dropped.limit, dropped: dropped.uses.length, first_names: names },
    denial,
  });
  return denial;
}

/**
 * A turn's ToolCalls cut to `limits.max_tool_calls_per_turn`. The calls past it are not run:
 * they leave the assistant message that is stored (so no result is owed for them), the drop is
 * audited once, and `notice` tells the model once, after the results — bounded whatever the
 * model sent.
 */
export async function limitTurn(audit: AuditLog, run: Run, turn: { stepId: string; content: ContentBlock[]; uses: ToolUseBlock[] }): Promise<{ content: ContentBlock[]; uses: ToolUseBlock[]; notice?: string }> {
  const limit = run.agent.limits.max_tool_calls_per_turn;
  const { uses } = turn;
  if (uses.length <= limit) return { content: turn.content, uses };
  const kept = uses.slice(0, limit);
  const keptIds = new Set(kept.map((u) => u.id));
  const content = turn.content.filter((b) => b.type !== "tool_use" || keptIds.has(b.id));
  const denial = await auditDroppedCalls(audit, run, { stepId: turn.stepId, asked: uses.length, limit, uses: uses.slice(limit) });
  return { content, uses: kept, notice: `${denial.message}. The other ${uses.length - limit} were not run; ask for at most ${limit} tool calls at a time.` };
}

/** The subject of a ToolCall the loop answers itself (e.g. `tools.search`): allowed, no plugin. */
export function loopCallSubject(run: Run, stepId: string, use: ToolUseBlock) {
  const name = use.name.slice(0, NAME_CHARS);
  return { ...subject(run, stepId), toolCall: { id: use.id.slice(0, NAME_CHARS), name }, tool: name };
}

/** The audit subject of a ToolCall the loop answers itself (a refusal, a todo call). */
export function subject(run: Run, stepId: string) {
  return {
    kind: "tool_call" as const,
    traceId: run.traceId,
    runId: run.id,
    taskId: run.taskId,
    parentRunId: run.parentRunId,
    agent: run.agent.name,
    stepId,
    plugin: null,
    requestedCapabilities: [],
    grantedCapabilities: Object.keys(run.layers.task ?? run.layers.agent.grants),
    approvalRequired: false,
    approvalResult: null,
  };
}
