import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import * as v from "valibot";
import type { Runtime } from "../../runtime.js";
import type { RunRecord } from "../../runs/records.js";
import { mayReadRun, principalOf, type ApiEnv, type Principal } from "../auth/index.js";
import { ownerOf } from "../auth/principal.js";
import { ApiError, ID } from "../middleware/index.js";
import { defineRoute, reply, type ApiRoute } from "./route.js";
import { storeFailedAfter } from "../../runs/errors.js";
import { untilSettled, type ApiShutdown } from "../shutdown.js";
import { ConversationBody, OutcomeSchema, ReportSchema, RunBody, RunPage, type RunSchema } from "../schemas/runs.js";
import { PAGE_QUERY, pageOf, timeKey, timeKeyOf } from "./page.js";
import { snakeKeys } from "./snake.js";

const ToolCallSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  input: v.optional(v.unknown()),
  /** This call's deadline in place of the agent's call_timeout_ms. */
  timeout_ms: v.optional(v.pipe(v.number(), v.integer("expected whole milliseconds"), v.minValue(1), v.maxValue(86_400_000))),
});

export const SubmitRunSchema = v.pipe(
  v.strictObject({
    agent: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,62}$/, "expected an agent name")),
    task: v.optional(v.pipe(v.string(), v.maxLength(100_000))),
    /** Explicit calls; without them the agent's model drives the run from `task`. */
    tool_calls: v.optional(v.pipe(v.array(ToolCallSchema), v.minLength(1, "expected at least one tool call"), v.maxLength(1000))),
    grants: v.optional(v.record(v.string(), v.unknown())),
    /** Continue this conversation (a run the model drives only). */
    conversation_id: v.optional(ID),
  }),
  v.forward(
    v.check((body) => body.tool_calls !== undefined || (body.task !== undefined && body.task.trim() !== ""), "expected task text for the model, or tool_calls"),
    ["task"],
  ),
  v.forward(
    v.check((body) => body.conversation_id === undefined || body.tool_calls === undefined, "only a run the model drives (no tool_calls) continues a conversation"),
    ["conversation_id"],
  ),
);

const ListQuery = v.strictObject({
  status: v.optional(v.picklist(["active", "awaiting_approval", "ended"])),
  agent: v.optional(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,62}$/, "expected an agent name"))),
  ...PAGE_QUERY,
});

/** What reading runs needs of a runtime: the records, and its live runs (none without a runtime). */
export type RunReader = Pick<Runtime, "records" | "getRun">;

/** How often an event stream looks for new events of a run another node drives. */
const POLL_MS = 100;

/** A run as the API shows it: its record, its plan's outcomes so far, and its least-privilege report. */
export function runView(record: RunRecord, runtime: Pick<Runtime, "getRun">): v.InferInput<typeof RunSchema> {
  const live = runtime.getRun(record.id);
  return {
    id: record.id,
    trace_id: record.traceId,
    task_id: record.taskId,
    parent_run_id: record.parentRunId,
    agent: record.agent,
    task: record.task,
    status: record.status,
    end_reason: record.endReason,
    created_at: new Date(record.createdAt).toISOString(),
    ended_at: record.endedAt === null ? null : new Date(record.endedAt).toISOString(),
    // A run waiting for its sub-agent shows the approval the child waits for, and the child.
    pending_approval: record.pending
      ? { id: record.pending.approvalId, tool: record.pending.tool, step_id: record.pending.stepId, ...(record.pending.childRunId === undefined ? {} : { sub_agent_run_id: record.pending.childRunId }) }
      : null,
    tool_calls: record.plan?.length ?? null,
    outcomes: record.outcomes.map(outcomeView),
    conversation_id: record.conversationId,
    result: record.result,
    report: reportView(record.report ?? live?.report() ?? null),
  };
}

/** A ToolCall's outcome as stored, in the API's names. */
export function outcomeView(outcome: unknown): v.InferInput<typeof OutcomeSchema> {
  return snakeKeys(outcome) as v.InferInput<typeof OutcomeSchema>;
}

/** The least-privilege report as stored (camelCase, older runs included), in the API's names. */
export function reportView(report: unknown): v.InferInput<typeof ReportSchema> | null {
  return report === null || report === undefined ? null : (snakeKeys(report) as v.InferInput<typeof ReportSchema>);
}

/** A run event's data in the API's names (what `GET /v1/runs/:id/events` streams). */
export function eventData(data: unknown): unknown {
  return snakeKeys(data);
}

const IdParams = v.strictObject({ id: ID });
const WaitQuery = v.strictObject({ wait: v.optional(v.picklist(["true", "false", "1", "0"], "expected true or false")) });
const EventsQuery = v.strictObject({ after: v.optional(v.pipe(v.string(), v.regex(/^\d{1,12}$/, "expected an event number"))) });

/**
 * POST/GET /v1/runs, GET /v1/runs/:id, GET /v1/runs/:id/events (SSE), POST /v1/runs/:id/cancel,
 * GET /v1/conversations/:id (the history model-driven runs continue).
 */
/** `shutdown`: a server's stop, which answers `wait=true` requests still waiting (503 `server_stopping`). */
export function runRoutes(runtime: Runtime, options: { shutdown?: ApiShutdown } = {}): ApiRoute[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/runs",
      tag: "runs",
      summary: "Start a run: the agent's model drives it from `task`, or it runs explicit `tool_calls` (?wait=true answers when it ends or waits for a person)",
      roles: ["client"],
      idempotent: true,
      query: WaitQuery,
      body: SubmitRunSchema,
      responses: {
        201: { description: "ended or waiting (wait=true)", schema: RunBody },
        202: { description: "started; follow /v1/runs/:id/events", schema: RunBody },
        404: { description: "no such agent" },
        500: { description: "effect_committed_store_failed: the store failed after the run's effects happened (`error.details.effects`, with their ToolCalls' outcomes); do not submit it again" },
        503: { description: "server_stopping (wait=true: the server began to stop first; `Location` and `error.details.run_id` name the run, which continues on another node or after a restart), run_store_failed: the store failed and the run made no effect (safe to submit again), or store_busy / store_read_only / store_full / store_unreachable / store_timeout; each with Retry-After" },
      },
      handler: async (c, { query, body }) => {
        const wait = query.wait === "true" || query.wait === "1";
        const { run, settled } = await runtime.submitRun({
          agent: body.agent,
          ...(body.tool_calls === undefined ? {} : { toolCalls: body.tool_calls.map((call) => ({ name: call.name, input: call.input ?? {}, ...(call.timeout_ms === undefined ? {} : { timeoutMs: call.timeout_ms }) })) }),
          ...(body.conversation_id === undefined ? {} : { conversationId: body.conversation_id }),
          ...(ownerOf(principalOf(c)) === null ? {} : { ownerToken: ownerOf(principalOf(c))! }),
          ...(body.task === undefined ? {} : { task: body.task }),
          ...(body.grants === undefined ? {} : { grants: body.grants }),
        });
        // A run whose end the store refused answers effect_committed_store_failed (its effects
        // happened: do not retry) or run_store_failed (nothing happened): never a bare 500.
        if (wait) await untilSettled(settled, run.id, options.shutdown);
        else settled.catch(() => undefined);
        const record = await runtime.records.get(run.id).catch((error: unknown) => {
          throw storeFailedAfter(run, error);
        });
        if (!record) throw storeFailedAfter(run, undefined);
        return reply(c, RunBody, { run: runView(record, runtime) }, wait ? 201 : 202, { Location: `/v1/runs/${run.id}` });
      },
    }),
    ...runReadRoutes(runtime),
    defineRoute({
      method: "POST",
      path: "/v1/runs/:id/cancel",
      tag: "runs",
      summary: "Cancel a run: no further tool call starts; it ends as cancelled",
      roles: ["client"],
      params: IdParams,
      responses: { 202: { description: "cancelling", schema: RunBody }, 404: { description: "no such run" }, 409: { description: "run_ended" } },
      handler: async (c, { params }) => {
        const record = await readable(runtime, params.id, principalOf(c));
        return reply(c, RunBody, { run: runView(await runtime.cancelRun(record.id), runtime) }, 202);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/runs/:id/events",
      tag: "runs",
      summary: "The run's events as Server-Sent Events, from any node; resumes after Last-Event-ID (or ?after=)",
      description: "Each event: `id` (its number in the run), `event` (tool-call, tool-result, approval-required, host-call, log, instance, text (the model's text as it streams), step, run-ended), `data` (JSON, snake_case names). The stream ends with `event: end`.",
      roles: ["client", "approver"],
      params: IdParams,
      query: EventsQuery,
      responses: { 200: { description: "text/event-stream", mediaType: "text/event-stream" }, 404: { description: "no such run" } },
      handler: async (c, { params, query }) => {
        const record = await readable(runtime, params.id, principalOf(c));
        const cursorText = c.req.header("last-event-id") ?? query.after ?? "0";
        if (!/^\d{1,12}$/.test(cursorText)) throw new ApiError("invalid_input", "Last-Event-ID: expected an event number", { status: 400, field: "header.last-event-id" });
        return streamEvents(c, runtime, record.id, Number(cursorText));
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/conversations/:id",
      tag: "runs",
      summary: "One conversation: its agent and its messages in order (continue it with POST /v1/runs and conversation_id)",
      roles: ["client", "approver"],
      params: IdParams,
      responses: { 200: { description: "the conversation", schema: ConversationBody }, 404: { description: "no such conversation (or not the caller's)" } },
      handler: async (c, { params }) => {
        const principal = principalOf(c);
        const conversation = await runtime.conversations.get(params.id);
        if (!conversation || (principal.role !== "approver" && !mayReadRun(principal, conversation.ownerToken))) {
          throw new ApiError("not_found", `no conversation ${params.id}`, { status: 404 });
        }
        const messages = await runtime.conversations.messages(conversation.id);
        return reply(c, ConversationBody, {
          conversation: {
            id: conversation.id,
            agent: conversation.agent,
            created_at: new Date(conversation.createdAt).toISOString(),
            updated_at: new Date(conversation.updatedAt).toISOString(),
            messages: messages.map((m) => ({ seq: m.seq, run_id: m.runId, role: m.role, content: m.content, at: new Date(m.at).toISOString() })),
          },
        });
      },
    }),
  ];
}

/** GET /v1/runs and /v1/runs/:id: the run records alone (a store opened without a runtime serves them too). */
export function runReadRoutes(runtime: RunReader): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/runs",
      tag: "runs",
      summary: "List runs, newest first (a client sees its own), a page at a time; ?status and ?agent filter them",
      roles: ["client", "approver"],
      query: ListQuery,
      responses: { 200: { description: "a page of runs", schema: RunPage } },
      handler: async (c, { query }) => {
        const principal = principalOf(c);
        const limit = query.limit ?? 100;
        const before = query.cursor === undefined ? undefined : timeKeyOf(query.cursor);
        const records = await runtime.records.list({
          ...(query.status ? { status: query.status } : {}),
          ...(query.agent === undefined ? {} : { agent: query.agent }),
          limit: limit + 1,
          ...(before === undefined ? {} : { before: { createdAt: before.at, id: before.id } }),
          ...(principal.role === "client" ? { ownerToken: principal.tokenId } : {}),
        });
        const page = pageOf(records, (r) => timeKey(r.createdAt, r.id), { limit }, "desc");
        return reply(c, RunPage, { runs: page.items.map((r) => runView(r, runtime)), next_cursor: page.next_cursor });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/runs/:id",
      tag: "runs",
      summary: "One run: status, plan outcomes, pending approval, least-privilege report",
      roles: ["client", "approver"],
      params: IdParams,
      responses: { 200: { description: "the run", schema: RunBody }, 404: { description: "no such run (or not the caller's)" } },
      handler: async (c, { params }) => reply(c, RunBody, { run: runView(await readable(runtime, params.id, principalOf(c)), runtime) }),
    }),
  ];
}

function streamEvents(c: Context<ApiEnv>, runtime: Runtime, id: string, from: number): Response {
  let after = from;
  return streamSSE(c, async (stream) => {
    let closed = false;
    stream.onAbort(() => {
      closed = true;
    });
    for (;;) {
      // A reader gone (a socket closed, a command that stopped following) reads nothing more:
      // the runtime may be closing under it.
      if (closed) return;
      const events = await runtime.events.list(id, { after, limit: 500 });
      for (const event of events) {
        await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(eventData(event.data)) });
        after = event.seq;
        if (event.type === "run-ended") {
          await stream.writeSSE({ event: "end", data: JSON.stringify({ run: id }) });
          return;
        }
      }
      if (closed) return;
      if (events.length === 0) {
        // Nothing new: an ended run whose stream was read to the end, or one still going.
        const now = await runtime.records.get(id);
        if (!now || (now.status === "ended" && (await runtime.events.list(id, { after, limit: 1 })).length === 0)) {
          await stream.writeSSE({ event: "end", data: JSON.stringify({ run: id }) });
          return;
        }
        await waitForEvent(runtime, id, POLL_MS);
      }
    }
  });
}

/** The run's record when `principal` may read it; 404 otherwise (someone else's run is not shown to exist). */
export async function readable(runtime: Pick<Runtime, "records">, id: string, principal: Principal): Promise<RunRecord> {
  const record = await runtime.records.get(id);
  if (!record || (principal.role !== "approver" && !mayReadRun(principal, record.ownerToken))) {
    throw new ApiError("not_found", `no run ${id}`, { status: 404 });
  }
  return record;
}

/** Resolves on the run's next event when this node drives it, else after `ms` (another node writes to the store). */
function waitForEvent(runtime: Runtime, id: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const run = runtime.getRun(id);
    let off = () => {};
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      off();
      // The event is written to the store a moment after it is emitted.
      setTimeout(resolve, 5);
    }
    if (run) off = run.onEvent(() => done());
  });
}
