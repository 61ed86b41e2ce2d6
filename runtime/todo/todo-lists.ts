/**
 * Todo lists in the store, one row a scope (`run:<id>`, or `conversation:<id>` for an agent whose
 * list spans a conversation's runs): written whole, so a list read is what one write made.
 */
import type { Migration, Store } from "../store/index.js";
import type { TodoItem, TodoList } from "./items.js";

export const todoMigrations: readonly Migration[] = [
  {
    room: "todo",
    version: 1,
    name: "create todo_lists",
    statements: [
      `CREATE TABLE todo_lists (
        scope TEXT PRIMARY KEY CHECK (length(scope) > 0),
        items TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        run_id TEXT NOT NULL
      ) STRICT`,
    ],
  },
];

/** Where a run's list lives: its own, or its conversation's when the agent says `todo: conversation`. */
export function todoScope(mode: "run" | "conversation", run: { runId: string; conversationId: string | null | undefined }): string {
  return mode === "conversation" && run.conversationId ? `conversation:${run.conversationId}` : `run:${run.runId}`;
}

export class TodoLists {
  readonly #store: Store;
  readonly #now: () => number;

  constructor(store: Store, options: { now: () => number }) {
    this.#store = store;
    this.#now = options.now;
  }

  async read(scope: string): Promise<TodoList | undefined> {
    const result = await this.#store.execute({ sql: "SELECT items, updated_at, run_id FROM todo_lists WHERE scope = ?", args: [scope] });
    const row = result.rows[0];
    if (!row) return undefined;
    return { scope, items: JSON.parse(String(row.items)) as TodoItem[], updatedAt: Number(row.updated_at), runId: String(row.run_id) };
  }

  async write(scope: string, items: readonly TodoItem[], options: { runId: string }): Promise<TodoList> {
    const list: TodoList = { scope, items: [...items], updatedAt: this.#now(), runId: options.runId };
    await this.#store.execute({
      sql: "INSERT INTO todo_lists (scope, items, updated_at, run_id) VALUES (?, ?, ?, ?) ON CONFLICT (scope) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at, run_id = excluded.run_id",
      args: [scope, JSON.stringify(list.items), list.updatedAt, list.runId],
    });
    return list;
  }
}
