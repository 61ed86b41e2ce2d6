import { encodeToolResult, toolResult, type ToolResultBlock, type ToolUseBlock } from "../../llm/index.js";
import { argsHash } from "../../policy/approvals/index.js";
import type { ToolCallError, ToolCallOutcome } from "../types.js";

/**
 * The tool result the model gets for a finished ToolCall: the output as text (tables as TOON),
 * or an error result carrying the structured reason (kind, message, denial) so the model can
 * tell a refusal by policy from a bad input or a broken tool.
 */
export function outcomeResult(use: Pick<ToolUseBlock, "id">, outcome: Exclude<ToolCallOutcome, { status: "approval_required" }>): ToolResultBlock {
  if (outcome.status === "ok") return toolResult(use.id, encodeToolResult(outcome.output).text);
  return errorResult(use, outcome.error);
}

export function errorResult(use: Pick<ToolUseBlock, "id">, error: ToolCallError): ToolResultBlock {
  const reason: Record<string, unknown> = { kind: error.kind, message: error.message };
  if (error.denial) reason.denial = error.denial;
  return toolResult(use.id, JSON.stringify({ error: reason }), { isError: true });
}

/** The error (and its result block) for a call stopped because the model asked for it again unchanged. */
export function repeatedCallResult(use: ToolUseBlock, times: number): { error: ToolCallError; block: ToolResultBlock } {
  const error = {
    kind: "repeated-call",
    message: `stopped: ${use.name.slice(0, 200)} was already called ${times} times with exactly this input, so it is not run again; use the results you have, or change the input or your approach`,
  };
  return { error, block: errorResult(use, error) };
}

/** What makes two ToolCalls "the same call": the tool and its canonical input. */
export function callSignature(use: Pick<ToolUseBlock, "name" | "input">): string {
  return `${use.name} ${argsHash(use.input)}`;
}
