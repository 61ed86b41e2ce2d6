/**
 * GET /v1/runs/:id/todo: the task list the run's model keeps (`todo_write`; runtime/todo) as it
 * stands: the run's own, or its conversation's for an agent with `todo: conversation`. Empty when
 * the model has written none.
 */
import * as v from "valibot";
import type { Runtime } from "../../runtime.js";
import { todoScope } from "../../todo/index.js";
import { principalOf } from "../auth/index.js";
import { ApiError, ID } from "../middleware/index.js";
import { TodoBody } from "../schemas/runs.js";
import { defineRoute, reply, type ApiRoute } from "./route.js";
import { readable } from "./runs.js";

const IdParams = v.strictObject({ id: ID });

export function runTodoRoutes(runtime: Runtime): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/runs/:id/todo",
      tag: "runs",
      summary: "The run's todo list, as its model last wrote it",
      description:
        "The items `{id, text, status}` the model wrote with `todo_write` (an agent with `todo: run` or `todo: conversation`), in its order; `scope` is `run:<id>` or `conversation:<id>` (a list kept across the conversation's runs). `updated_at` and `updated_by_run` are null while no list was written. Each write is also a `todo` event of the run.",
      roles: ["client"],
      params: IdParams,
      responses: {
        200: { description: "the list (empty when none was written)", schema: TodoBody },
        404: { description: "no such run (or not the caller's)" },
      },
      handler: async (c, { params }) => {
        const record = await readable(runtime, params.id, principalOf(c)).catch((error: unknown) => {
          throw error instanceof ApiError && error.code === "not_found" ? new ApiError("not_found", error.message, { status: 404, field: "path.id" }) : error;
        });
        const own = todoScope("run", { runId: record.id, conversationId: null });
        const shared = record.conversationId ? todoScope("conversation", { runId: record.id, conversationId: record.conversationId }) : undefined;
        const list = (await runtime.todos.read(own)) ?? (shared === undefined ? undefined : await runtime.todos.read(shared));
        const items = list?.items ?? [];
        return reply(c, TodoBody, {
          run_id: record.id,
          scope: list?.scope ?? own,
          items,
          done: items.filter((i) => i.status === "done").length,
          updated_at: list === undefined ? null : new Date(list.updatedAt).toISOString(),
          updated_by_run: list?.runId ?? null,
        });
      },
    }),
  ];
}
