import { randomUUID } from "node:crypto";
import type { AgentManifest } from "../agents/index.js";
import { InvalidInputError, NotFoundError } from "../errors.js";
import { parseTaskGrants } from "../runs/agent-setup.js";
import { checkCron, nextCronTime } from "./cron.js";
import type { ScheduledToolCall, ScheduleRecord } from "./records.js";

/** What `Scheduler.create` takes: exactly one of `at` (a one-shot) or `cron`. */
export interface CreateScheduleInput {
  agent: string;
  /** The task text (the agent's model drives the run unless `toolCalls` are given). */
  task: string;
  toolCalls?: readonly ScheduledToolCall[];
  /** A grant narrower than the agent's; without it the agent's whole grant as it is now. */
  grants?: unknown;
  /** The API token that created it: it owns the runs it starts. */
  ownerToken?: string | null;
  /** A one-shot's time, ms since the epoch; must lie in the future. */
  at?: number;
  /** A cron expression (croner: 5 to 7 fields). */
  cron?: string;
  /** The IANA time zone `cron` is read in; default UTC. */
  timezone?: string;
  /** A cron schedule ends (done) before its first tick after this time. */
  until?: number;
  /** A cron schedule ends (done) after this many firings. */
  maxRuns?: number;
  /** The run that creates it, and its agent; absent when a person does. */
  createdBy?: { agent: string; run: string };
}

export const MAX_RUNS_LIMIT = 1_000_000;

/**
 * Validates `input` against the agents as they are now and builds the schedule's first record,
 * capturing its grant: the given narrower grant, else the agent's, frozen for every firing.
 */
export function buildSchedule(input: CreateScheduleInput, options: { agents: readonly AgentManifest[]; now: number }): ScheduleRecord {
  const { now } = options;
  const agent = options.agents.find((a) => a.name === input.agent);
  // Never the node's agents: the caller (a plugin, a client) may not learn their names.
  if (agent === undefined) throw new NotFoundError(`agent ${input.agent}: no such agent`);
  if (input.task.trim() === "" && (input.toolCalls ?? []).length === 0) {
    throw new InvalidInputError("task: expected the task text for the model (or tool_calls)", { field: "task" });
  }
  const captured = parseTaskGrants(input.grants ?? agent.grants, agent, { field: "grants" });
  const base = {
    id: `sch_${randomUUID()}`,
    agent: agent.name,
    task: input.task,
    toolCalls: input.toolCalls === undefined || input.toolCalls.length === 0 ? null : input.toolCalls.map((c) => ({ name: c.name, input: c.input ?? {} })),
    capturedGrants: captured as unknown,
    ownerToken: input.ownerToken ?? null,
    runsSoFar: 0,
    status: "active" as const,
    createdAt: now,
    endedAt: null,
    createdByAgent: input.createdBy?.agent ?? null,
    createdByRun: input.createdBy?.run ?? null,
  };
  if ((input.at === undefined) === (input.cron === undefined)) {
    throw new InvalidInputError("at, cron: give exactly one: at (a time, for one run) or cron (an expression, for repeated runs)", { field: "at" });
  }
  if (input.at !== undefined) {
    for (const field of ["timezone", "until", "maxRuns"] as const) {
      if (input[field] !== undefined) throw new InvalidInputError(`${fieldName(field)}: only a cron schedule takes it; a one-shot (at) runs once`, { field: fieldName(field) });
    }
    checkTime(input.at, "at");
    if (input.at <= now) throw new InvalidInputError(`at: ${new Date(input.at).toISOString()} has passed; give a time in the future`, { field: "at" });
    return { ...base, kind: "once", at: input.at, cron: null, timezone: null, until: null, maxRuns: null, nextAt: input.at };
  }
  const cron = input.cron!;
  const timezone = input.timezone ?? null;
  checkCron(cron, timezone);
  if (input.until !== undefined) {
    checkTime(input.until, "until");
    if (input.until <= now) throw new InvalidInputError(`until: ${new Date(input.until).toISOString()} has passed; give a time in the future`, { field: "until" });
  }
  if (input.maxRuns !== undefined && (!Number.isInteger(input.maxRuns) || input.maxRuns < 1 || input.maxRuns > MAX_RUNS_LIMIT)) {
    throw new InvalidInputError(`max_runs: expected a whole number from 1 to ${MAX_RUNS_LIMIT}`, { field: "max_runs" });
  }
  const first = nextCronTime(cron, { after: now, timezone });
  if (first === null || (input.until !== undefined && first > input.until)) {
    throw new InvalidInputError(`cron: ${JSON.stringify(cron)} has no tick ${input.until === undefined ? "in the future" : `before until (${new Date(input.until).toISOString()})`}`, { field: "cron" });
  }
  return { ...base, kind: "cron", at: null, cron, timezone, until: input.until ?? null, maxRuns: input.maxRuns ?? null, nextAt: first };
}

function fieldName(field: "timezone" | "until" | "maxRuns"): string {
  return field === "maxRuns" ? "max_runs" : field;
}

function checkTime(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidInputError(`${field}: expected a time (ms since the epoch)`, { field });
}
