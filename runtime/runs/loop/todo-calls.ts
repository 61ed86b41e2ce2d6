/**
 * A todo ToolCall (`todo_write`, `todo_read`; runtime/todo), answered by the loop itself: the
 * list is read or replaced in the store, a write is shown as a `todo` run event, and the call is
 * recorded in the audit log like any ToolCall (input the tools cannot use, as a denial).
 */
import type { AuditLog } from "../../audit/index.js";
import { toolResult, type ToolResultBlock, type ToolUseBlock } from "../../llm/index.js";
import { callTodoTool, todoResultText, type TodoLists, type TodoTool } from "../../todo/index.js";
import type { Run } from "../run.js";
import { auditRefusedCall, LOOP_DENIAL_REASONS, subject } from "./refusals.js";
import { errorResult } from "./tool-results.js";

export interface TodoCallOptions {
  use: ToolUseBlock;
  stepId: string;
  conversationId: string | null | undefined;
  lists: TodoLists;
  audit: AuditLog;
  /** Marks the call's input unusable (the run stops after several such turns). */
  unusable: () => void;
}

export async function todoCall(run: Run, options: TodoCallOptions): Promise<ToolResultBlock> {
  const { use, stepId } = options;
  const name = use.name as TodoTool["name"];
  const result = await callTodoTool(options.lists, name, { input: use.input, mode: run.agent.todo ?? "run", runId: run.id, conversationId: options.conversationId });
  if (!result.ok) {
    options.unusable();
    await auditRefusedCall(options.audit, run, { stepId, use, denial: { capability: "todo", reason: LOOP_DENIAL_REASONS.invalidInput, message: result.message } });
    return errorResult(use, { kind: "invalid-input", message: result.message });
  }
  const text = todoResultText(result.list);
  const record = { ...subject(run, stepId), toolCall: { id: use.id.slice(0, 200), name }, tool: name, args: (name === "todo_write" ? use.input : {}) as never };
  const intent = options.audit.deferIntent(record);
  await options.audit.appendOutcome(intent, { status: "ok", resultSize: Buffer.byteLength(text) });
  if (result.written && result.list) run.recordTodo({ toolCallId: use.id, scope: result.list.scope, items: result.list.items });
  return toolResult(use.id, text);
}
