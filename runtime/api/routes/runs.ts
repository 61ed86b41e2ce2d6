import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import * as v from "valibot";
import type { Runtime } from "../../runtime.js";
import type { RunRecord } from "../../runs/records.js";
import { mayReadRun, principalOf, requireRole, type ApiEnv, type Principal } from "../auth/index.js";
import { ApiError, ID, jsonBody, parseAt, validParams } from "../middleware/index.js";

const ToolCallSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  input: v.optional(v.unknown()),
});

export const SubmitRunSchema = v.strictObject({
  agent: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,62}$/, "expected an agent name")),
  task: v.optional(v.pipe(v.string(), v.maxLength(100_000))),
  tool_calls: v.pipe(v.array(ToolCallSchema), v.minLength(1, "expected at least one tool call"), v.maxLength(1000)),
  grants: v.optional(v.record(v.string(), v.unknown())),
});

const ListQuery = v.object({
  status: v.optional(v.picklist(["active", "awaiting_approval", "ended"])),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,4}$/, "expected a number 1-1000"), v.transform(Number), v.minValue(1), v.maxValue(1000))),
});

/** How often an event stream looks for new events of a run another node drives. */
const POLL_MS = 100;

/** A run as the API shows it: its record, its plan's outcomes so far, and its least-privilege report. */
export function runView(record: RunRecord, runtime: Runtime): Record<string, unknown> {
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
    pending_approval: record.pending ? { id: record.pending.approvalId, tool: record.pending.tool, step_id: record.pending.stepId } : null,
    tool_calls: record.plan?.length ?? null,
    outcomes: record.outcomes,
    report: record.report ?? live?.report() ?? null,
  };
}

/** POST/GET /v1/runs, GET /v1/runs/:id, GET /v1/runs/:id/events (SSE), POST /v1/runs/:id/cancel. */
export function runRoutes(runtime: Runtime): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post("/", requireRole("client"), jsonBody(SubmitRunSchema), async (c) => {
    const body = c.req.valid("json");
    const wait = parseAt(v.optional(v.picklist(["true", "false", "1", "0"])), c.req.query("wait"), "query.wait");
    const principal = principalOf(c);
    const { run, settled } = await runtime.submitRun({
      agent: body.agent,
      toolCalls: body.tool_calls.map((call) => ({ name: call.name, input: call.input ?? {} })),
      ownerToken: principal.tokenId,
      ...(body.task === undefined ? {} : { task: body.task }),
      ...(body.grants === undefined ? {} : { grants: body.grants }),
    });
    if (wait === "true" || wait === "1") await settled;
    else settled.catch(() => undefined);
    const record = (await runtime.records.get(run.id))!;
    return c.json({ run: runView(record, runtime) }, wait === "true" || wait === "1" ? 201 : 202, { Location: `/v1/runs/${run.id}` });
  });

  app.get("/", requireRole("client", "approver"), async (c) => {
    const query = parseAt(ListQuery, c.req.query(), "query");
    const principal = principalOf(c);
    const records = await runtime.records.list({ ...(query.status ? { status: query.status } : {}), limit: query.limit ?? 100, ...(principal.role === "client" ? { ownerToken: principal.tokenId } : {}) });
    return c.json({ runs: records.map((r) => runView(r, runtime)) });
  });

  app.get("/:id", requireRole("client", "approver"), validParams(v.object({ id: ID })), async (c) => {
    const record = await readable(runtime, c.req.valid("param").id, principalOf(c));
    return c.json({ run: runView(record, runtime) });
  });

  app.post("/:id/cancel", requireRole("client"), validParams(v.object({ id: ID })), async (c) => {
    const record = await readable(runtime, c.req.valid("param").id, principalOf(c));
    const after = await runtime.cancelRun(record.id);
    return c.json({ run: runView(after, runtime) }, 202);
  });

  app.get("/:id/events", requireRole("client", "approver"), validParams(v.object({ id: ID })), async (c) => {
    const record = await readable(runtime, c.req.valid("param").id, principalOf(c));
    const cursorText = c.req.header("last-event-id") ?? c.req.query("after") ?? "0";
    if (!/^\d{1,12}$/.test(cursorText)) throw new ApiError("invalid_input", "after (or Last-Event-ID): expected an event number", { status: 400, field: "query.after" });
    let after = Number(cursorText);
    return streamSSE(c, async (stream) => {
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      for (;;) {
        const events = await runtime.events.list(record.id, { after, limit: 500 });
        for (const event of events) {
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event.data) });
          after = event.seq;
          if (event.type === "run-ended") {
            await stream.writeSSE({ event: "end", data: JSON.stringify({ run: record.id }) });
            return;
          }
        }
        if (closed) return;
        if (events.length === 0) {
          // Nothing new: an ended run whose stream was read to the end, or one still going.
          const now = await runtime.records.get(record.id);
          if (!now || (now.status === "ended" && (await runtime.events.list(record.id, { after, limit: 1 })).length === 0)) {
            await stream.writeSSE({ event: "end", data: JSON.stringify({ run: record.id }) });
            return;
          }
          await waitForEvent(runtime, record.id, POLL_MS);
        }
      }
    });
  });

  return app;
}

/** The run's record when `principal` may read it; 404 otherwise (someone else's run is not shown to exist). */
async function readable(runtime: Runtime, id: string, principal: Principal): Promise<RunRecord> {
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
