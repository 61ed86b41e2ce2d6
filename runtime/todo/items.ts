/**
 * A todo list as the model writes it (`todo_write`): the whole list each time, items
 * `{id, text, status}`, checked here at the edge with messages that name the field, so the model
 * can correct itself. Bounded: a list is small working memory, never a store for documents.
 */
import * as v from "valibot";

export const TODO_STATUSES = ["pending", "in_progress", "done"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export const MAX_TODO_ITEMS = 50;
export const MAX_TODO_TEXT = 500;
export const MAX_TODO_ID = 64;

export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
}

/** A list as stored: its items, when it was last written and by which run. */
export interface TodoList {
  scope: string;
  items: TodoItem[];
  updatedAt: number;
  runId: string;
}

const ItemSchema = v.strictObject({
  id: v.pipe(v.string("expected a string"), v.regex(/^[A-Za-z0-9_.-]+$/, "expected an id of letters, digits, '_', '.', '-'"), v.maxLength(MAX_TODO_ID, `at most ${MAX_TODO_ID} characters`)),
  text: v.pipe(v.string("expected a string"), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(MAX_TODO_TEXT, `at most ${MAX_TODO_TEXT} characters`)),
  status: v.picklist(TODO_STATUSES, `expected one of ${TODO_STATUSES.join(", ")}`),
});

const WriteSchema = v.strictObject({
  items: v.pipe(v.array(ItemSchema, "expected a list of {id, text, status}"), v.maxLength(MAX_TODO_ITEMS, `at most ${MAX_TODO_ITEMS} items`)),
});

/** The input schema the model is shown for `todo_write` (the same rules as `parseTodoWrite`). */
export const TODO_WRITE_SCHEMA = {
  type: "object",
  properties: {
    items: {
      type: "array",
      maxItems: MAX_TODO_ITEMS,
      description: "the whole list, in order; it replaces the previous one",
      items: {
        type: "object",
        properties: {
          id: { type: "string", maxLength: MAX_TODO_ID, description: "a short id, unique in the list (letters, digits, _ . -)" },
          text: { type: "string", maxLength: MAX_TODO_TEXT, description: "what to do" },
          status: { type: "string", enum: [...TODO_STATUSES] },
        },
        required: ["id", "text", "status"],
        additionalProperties: false,
      },
    },
  },
  required: ["items"],
  additionalProperties: false,
} as const;

/** The items of a `todo_write` input; throws `TodoInputError` naming the field. */
export function parseTodoWrite(input: unknown): TodoItem[] {
  const parsed = v.safeParse(WriteSchema, input);
  if (!parsed.success) {
    const issue = parsed.issues[0]!;
    const path = v.getDotPath(issue);
    throw new TodoInputError(`${path ?? "input"}: ${issue.message}`, path ?? "input");
  }
  const items = parsed.output.items;
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.id)) throw new TodoInputError(`items.${i}.id: ${JSON.stringify(item.id)} is used twice; ids are unique in a list`, `items.${i}.id`);
    seen.add(item.id);
  });
  return items;
}

/** Input the todo tools cannot use: the model is told which field and why. */
export class TodoInputError extends Error {
  readonly field: string;
  constructor(message: string, field: string) {
    super(message);
    this.name = "TodoInputError";
    this.field = field;
  }
}
