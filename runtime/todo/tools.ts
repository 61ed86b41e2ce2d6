/**
 * The todo tools the model of an agent with `todo: run | conversation` is offered: `todo_write`
 * (replace the list) and `todo_read`. They are the runtime's own, like sub-agent tools: a name
 * with one `_` can never be a plugin tool's wire name (which holds `__`, runtime/llm/tool-names.ts)
 * nor a sub-agent's (`subagent_`). The list touches nothing outside the store, so no grant is
 * needed; each call is recorded in the audit log as a ToolCall.
 */
import { MAX_TODO_ITEMS, parseTodoWrite, TODO_WRITE_SCHEMA, type TodoItem, type TodoList } from "./items.js";
import { todoScope, type TodoLists } from "./todo-lists.js";

export const TODO_WRITE = "todo_write";
export const TODO_READ = "todo_read";

export interface TodoTool {
  name: typeof TODO_WRITE | typeof TODO_READ;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type TodoMode = "run" | "conversation";

/** The todo tools for an agent's `todo` setting (none when it has none). */
export function todoTools(mode: TodoMode | undefined): TodoTool[] {
  if (mode === undefined) return [];
  const across = mode === "conversation" ? " It is kept across this conversation's runs." : "";
  return [
    {
      name: TODO_WRITE,
      description: `Write your task list for this work: the whole list each time (it replaces the previous one), at most ${MAX_TODO_ITEMS} items {id, text, status: pending | in_progress | done}. Keep it current as you work: the person sees it.${across}`,
      inputSchema: TODO_WRITE_SCHEMA as unknown as Record<string, unknown>,
    },
    { name: TODO_READ, description: `Read your task list as last written.${across}`, inputSchema: { type: "object", properties: {}, additionalProperties: false } },
  ];
}

export function isTodoTool(name: string): name is TodoTool["name"] {
  return name === TODO_WRITE || name === TODO_READ;
}

/** What one todo call did: the list after it, or the error the model is told. */
export type TodoCallResult = { ok: true; list: TodoList | undefined; written: boolean } | { ok: false; message: string; field: string };

/** Runs `name` with `input` on the list of `run`'s scope. */
export async function callTodoTool(lists: TodoLists, name: TodoTool["name"], options: { input: unknown; mode: TodoMode; runId: string; conversationId: string | null | undefined }): Promise<TodoCallResult> {
  const scope = todoScope(options.mode, options);
  if (name === TODO_READ) {
    const extra = options.input !== null && typeof options.input === "object" ? Object.keys(options.input) : [];
    if (extra.length > 0) return { ok: false, message: `${extra[0]}: todo_read takes no input`, field: extra[0]! };
    return { ok: true, list: await lists.read(scope), written: false };
  }
  let items: TodoItem[];
  try {
    items = parseTodoWrite(options.input);
  } catch (error) {
    const e = error as Error & { field?: string };
    if (e.name !== "TodoInputError") throw error;
    return { ok: false, message: e.message, field: e.field ?? "input" };
  }
  return { ok: true, list: await lists.write(scope, items, { runId: options.runId }), written: true };
}

/** The tool result the model reads: the list, one line an item, and its counts. */
export function todoResultText(list: TodoList | undefined): string {
  const items = list?.items ?? [];
  if (items.length === 0) return JSON.stringify({ items: [], summary: "the list is empty" });
  const done = items.filter((i) => i.status === "done").length;
  return JSON.stringify({ items, summary: `${done} of ${items.length} done` });
}
