/** Todo lists a run's model keeps (`todo_write`, `todo_read`), stored per run or per conversation. */
export { MAX_TODO_ID, MAX_TODO_ITEMS, MAX_TODO_TEXT, parseTodoWrite, TODO_STATUSES, TODO_WRITE_SCHEMA, TodoInputError } from "./items.js";
export type { TodoItem, TodoList, TodoStatus } from "./items.js";
export { TodoLists, todoMigrations, todoScope } from "./todo-lists.js";
export { callTodoTool, isTodoTool, TODO_READ, TODO_WRITE, todoResultText, todoTools } from "./tools.js";
export type { TodoCallResult, TodoMode, TodoTool } from "./tools.js";
