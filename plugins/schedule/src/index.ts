/**
 * The `schedule` plugin: an agent schedules later runs, lists and cancels its own, over
 * `clawhive:host/schedule`. Which agents it may schedule, how many schedules it may hold, and
 * the grant each schedule captures are the host's business, decided on every call; the host
 * also shows and cancels only the schedules this agent's runs made.
 *
 * `list_schedules` only reads, but the `schedule` capability defaults to Guarded: an agent
 * manifest lowers it to Safe with an acknowledged `approvals.lower_risk` entry.
 */
import { cancel, create, list } from "clawhive:host/schedule@0.1.1";
import type { ScheduleInfo } from "clawhive:host/schedule@0.1.1";
import { defineTool, definePlugin, fail } from "../../sdk/index.js";

const listSchedules = defineTool({
  description: "List the schedules this agent's runs created (oldest first), with their status and next run.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  capabilities: ["schedule"],
  risk: "safe",
  run() {
    return { schedules: list().map(output) };
  },
});

const createSchedule = defineTool({
  description:
    "Schedule a later run of an agent (a person approves it first): once at a time (at, RFC 3339 " +
    "with an offset, e.g. 2026-12-01T09:00:00Z), or at each tick of a cron expression (cron, e.g. " +
    "\"0 9 * * 1-5\", read in timezone, default UTC; until and max_runs end it). The task is what the " +
    "agent's model works on then. The run gets this run's grant (for this agent) or the target " +
    "agent's, never more than this run has.",
  inputSchema: {
    type: "object",
    properties: {
      agent: { type: "string", description: "The agent to run, e.g. this agent's own name" },
      task: { type: "string", description: "What the run should do" },
      at: { type: "string", description: "One run at this time, e.g. 2026-12-01T09:00:00Z" },
      cron: { type: "string", description: "A run at each tick, e.g. 0 9 * * 1-5" },
      timezone: { type: "string", description: "IANA time zone of cron, e.g. Europe/Stockholm" },
      until: { type: "string", description: "No run after this time (cron only)" },
      max_runs: { type: "integer", description: "At most this many runs (cron only)" },
    },
    required: ["agent", "task"],
    additionalProperties: false,
  },
  capabilities: ["schedule"],
  risk: "guarded",
  run(input) {
    if ((input.at === undefined) === (input.cron === undefined)) throw fail.invalidInput("at, cron: give exactly one: at (one run) or cron (repeated runs)");
    const maxRuns = input.max_runs;
    if (maxRuns !== undefined && (!Number.isInteger(maxRuns) || maxRuns < 1 || maxRuns > 0xffff_ffff)) throw fail.invalidInput("max_runs: expected a whole number of at least 1");
    const created = create({
      agent: input.agent,
      task: input.task,
      ...(input.at === undefined ? {} : { at: input.at }),
      ...(input.cron === undefined ? {} : { cron: input.cron }),
      ...(input.timezone === undefined ? {} : { timezone: input.timezone }),
      ...(input.until === undefined ? {} : { until: input.until }),
      ...(maxRuns === undefined ? {} : { maxRuns }),
    });
    return { created: output(created) };
  },
});

const cancelSchedule = defineTool({
  description: "Cancel one of this agent's schedules by id (a person approves it first); runs it already started go on.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string", description: "A schedule id from list_schedules, sch_…" } },
    required: ["id"],
    additionalProperties: false,
  },
  capabilities: ["schedule"],
  risk: "guarded",
  run({ id }) {
    return { id, cancelled: cancel(id) };
  },
});

function output(s: ScheduleInfo): Record<string, unknown> {
  return {
    id: s.id,
    agent: s.agent,
    task: s.task,
    kind: s.kind,
    at: s.at ?? null,
    cron: s.cron ?? null,
    timezone: s.timezone ?? null,
    until: s.until ?? null,
    max_runs: s.maxRuns ?? null,
    runs_so_far: s.runsSoFar,
    next_at: s.nextAt ?? null,
    status: s.status,
    created_at: s.createdAt,
  };
}

export const tools = definePlugin({
  tools: { list_schedules: listSchedules, create_schedule: createSchedule, cancel_schedule: cancelSchedule },
});
