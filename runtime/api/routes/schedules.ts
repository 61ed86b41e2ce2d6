import * as v from "valibot";
import { InvalidInputError } from "../../errors.js";
import type { Scheduler, ScheduleRecord } from "../../schedules/index.js";
import { firingView, MAX_RUNS_LIMIT, scheduleView } from "../../schedules/index.js";
import { principalOf, type Principal } from "../auth/index.js";
import { ownerOf } from "../auth/principal.js";
import { ApiError, ID } from "../middleware/index.js";
import { defineRoute, reply, type ApiRoute } from "./route.js";
import * as S from "../schemas/resources.js";
import { PAGE_QUERY, pageOf, timeKey } from "./page.js";
import type { FiringRecord } from "../../schedules/index.js";

/** The schedules room's views, typed by the API's schemas (the contract test checks them field by field). */
const schedule = (s: ScheduleRecord) => scheduleView(s) as v.InferInput<typeof S.ScheduleSchema>;
const firing = (f: FiringRecord) => firingView(f) as v.InferInput<typeof S.FiringSchema>;

/** An RFC 3339 time with its offset: a time without one would be read in the server's zone. */
const TIME = v.pipe(
  v.string(),
  v.check((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i.test(s) && !Number.isNaN(Date.parse(s)), "expected an RFC 3339 time with an offset, e.g. 2026-01-31T09:00:00Z"),
  v.transform((s) => Date.parse(s)),
);

const ToolCallSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  input: v.optional(v.unknown()),
});

export const CreateScheduleSchema = v.pipe(
  v.strictObject({
    agent: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,62}$/, "expected an agent name")),
    task: v.pipe(v.string(), v.maxLength(100_000)),
    tool_calls: v.optional(v.pipe(v.array(ToolCallSchema), v.minLength(1, "expected at least one tool call"), v.maxLength(1000))),
    /** Narrower than the agent's grant; captured now and used for every firing. */
    grants: v.optional(v.record(v.string(), v.unknown())),
    at: v.optional(TIME),
    cron: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    timezone: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
    until: v.optional(TIME),
    max_runs: v.optional(v.pipe(v.number(), v.integer("expected a whole number"), v.minValue(1), v.maxValue(MAX_RUNS_LIMIT))),
  }),
  v.forward(v.check((b) => (b.at === undefined) !== (b.cron === undefined), "give exactly one: at (one run) or cron (repeated runs)"), ["at"]),
);

const ListQuery = v.strictObject({ status: v.optional(v.picklist(["active", "done", "missed", "cancelled"])), ...PAGE_QUERY });
const IdParams = v.strictObject({ id: ID });

/** GET/POST /v1/schedules, GET/DELETE /v1/schedules/:id. A client sees and cancels only its own. */
export function scheduleRoutes(scheduler: Scheduler): ApiRoute[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/schedules",
      tag: "schedules",
      summary: "Schedule runs: once (`at`) or on a cron expression; every run gets the grant captured now",
      roles: ["client"],
      idempotent: true,
      body: CreateScheduleSchema,
      responses: { 201: { description: "the schedule", schema: S.ScheduleBody }, 404: { description: "no such agent" } },
      handler: async (c, { body }) => {
        const created = await withBodyFields(() =>
          scheduler.create({
            agent: body.agent,
            task: body.task,
            ...(body.tool_calls === undefined ? {} : { toolCalls: body.tool_calls.map((t) => ({ name: t.name, input: t.input ?? {} })) }),
            ...(body.grants === undefined ? {} : { grants: body.grants }),
            ...(body.at === undefined ? {} : { at: body.at }),
            ...(body.cron === undefined ? {} : { cron: body.cron }),
            ...(body.timezone === undefined ? {} : { timezone: body.timezone }),
            ...(body.until === undefined ? {} : { until: body.until }),
            ...(body.max_runs === undefined ? {} : { maxRuns: body.max_runs }),
            // A person on the store (the command line's in-process client) owns no token: the
            // schedule and its runs are nobody's, as the admins' and approvers' to see.
            ownerToken: ownerOf(principalOf(c)),
          }),
        );
        return reply(c, S.ScheduleBody, { schedule: schedule(created) }, 201, { Location: `/v1/schedules/${created.id}` });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/schedules",
      tag: "schedules",
      summary: "List schedules (a client's own; an admin's or approver's all)",
      roles: ["client", "approver"],
      query: ListQuery,
      responses: { 200: { description: "a page of schedules, oldest first", schema: S.SchedulePage } },
      handler: async (c, { query }) => {
        const principal = principalOf(c);
        const list = await scheduler.list({ ...(query.status === undefined ? {} : { status: query.status }), ...(principal.role === "client" ? { ownerToken: principal.tokenId } : {}) });
        const page = pageOf(list, (s) => timeKey(s.createdAt, s.id), query);
        return reply(c, S.SchedulePage, { schedules: page.items.map(schedule), next_cursor: page.next_cursor });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/schedules/:id",
      tag: "schedules",
      summary: "One schedule and its latest firings",
      roles: ["client", "approver"],
      params: IdParams,
      responses: { 200: { description: "the schedule and its latest firings", schema: S.ScheduleDetail }, 404: { description: "not_found" } },
      handler: async (c, { params }) => {
        const found = await readable(scheduler, params.id, principalOf(c));
        return reply(c, S.ScheduleDetail, { schedule: schedule(found), firings: (await scheduler.firings(found.id)).map(firing) });
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/schedules/:id",
      tag: "schedules",
      summary: "Cancel a schedule (runs it already started go on)",
      roles: ["client"],
      params: IdParams,
      responses: { 200: { description: "cancelled", schema: S.ScheduleBody }, 404: { description: "not_found" }, 409: { description: "schedule_ended" } },
      handler: async (c, { params }) => {
        await readable(scheduler, params.id, principalOf(c));
        return reply(c, S.ScheduleBody, { schedule: schedule(await scheduler.cancel(params.id)) });
      },
    }),
  ];
}

/** Someone else's schedule is not shown to exist: 404, as for runs. */
async function readable(scheduler: Scheduler, id: string, principal: Principal): Promise<ScheduleRecord> {
  const schedule = await scheduler.get(id);
  if (schedule === undefined || (principal.role === "client" && schedule.ownerToken !== principal.tokenId)) {
    throw new ApiError("not_found", `no schedule ${id}`, { status: 404 });
  }
  return schedule;
}

/** The Scheduler names fields as the body does; the API's errors say where: `body.<field>`. */
async function withBodyFields<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidInputError && error.field !== undefined) {
      throw new ApiError("invalid_input", error.message, { status: 400, field: `body.${error.field}`, cause: error });
    }
    throw error;
  }
}
