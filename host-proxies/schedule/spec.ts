/**
 * A guest's `schedule-spec` and `schedule-info` (wit/host/schedule.wit) as jco lifts and lowers
 * them. The spec comes from guest memory: every field is checked here, and bounded, before
 * anything else reads it.
 */
import type { ScheduleRecord } from "../../runtime/schedules/records.js";
import { HostProxyError } from "../types.js";

/** The longest task text a run may schedule, in characters (a person's API allows more). */
export const MAX_SCHEDULE_TASK_CHARS = 16_000;
const U32_MAX = 0xffff_ffff;
/** An RFC 3339 time with its offset: one without would be read in the server's zone. */
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
const AGENT_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** The spec, checked in shape and size; its meaning (cron, times in the future) is the Scheduler's. */
export interface ScheduleSpec {
  agent: string;
  task: string;
  at?: number;
  cron?: string;
  timezone?: string;
  until?: number;
  maxRuns?: number;
}

/** `schedule-info` as the guest receives it: optional fields are `undefined` for none. */
export interface ScheduleInfo {
  id: string;
  agent: string;
  task: string;
  kind: string;
  at: string | undefined;
  cron: string | undefined;
  timezone: string | undefined;
  until: string | undefined;
  maxRuns: number | undefined;
  runsSoFar: number;
  nextAt: string | undefined;
  status: string;
  createdAt: string;
}

const FIELDS = ["agent", "task", "at", "cron", "timezone", "until", "maxRuns"];

/** Throws `invalid-input` naming the field (`schedule.create: cron …`). */
export function parseScheduleSpec(value: unknown): ScheduleSpec {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad("spec", "must be a record");
  const extra = Object.keys(value).find((k) => !FIELDS.includes(k));
  if (extra !== undefined) throw bad("spec", `has no field ${JSON.stringify(extra.slice(0, 64))}`);
  const r = value as Record<string, unknown>;
  const agent = text(r.agent, "agent", 63);
  if (!AGENT_NAME.test(agent)) throw bad("agent", "must be an agent name (lower case letters, digits and -)");
  const task = text(r.task, "task", MAX_SCHEDULE_TASK_CHARS);
  if (task.trim() === "") throw bad("task", "must not be empty: it is what the agent's model works on");
  const spec: ScheduleSpec = { agent, task };
  const at = optionalText(r.at, "at", 64);
  if (at !== undefined) spec.at = time(at, "at");
  const cron = optionalText(r.cron, "cron", 200);
  if (cron !== undefined) spec.cron = cron;
  const timezone = optionalText(r.timezone, "timezone", 100);
  if (timezone !== undefined) spec.timezone = timezone;
  const until = optionalText(r.until, "until", 64);
  if (until !== undefined) spec.until = time(until, "until");
  if (r.maxRuns !== undefined) {
    if (typeof r.maxRuns !== "number" || !Number.isInteger(r.maxRuns) || r.maxRuns < 0 || r.maxRuns > U32_MAX) throw bad("max_runs", "must be a u32");
    spec.maxRuns = r.maxRuns;
  }
  return spec;
}

export function scheduleInfo(s: ScheduleRecord): ScheduleInfo {
  const iso = (t: number | null) => (t === null ? undefined : new Date(t).toISOString());
  return {
    id: s.id,
    agent: s.agent,
    task: s.task,
    kind: s.kind,
    at: iso(s.at),
    cron: s.cron ?? undefined,
    timezone: s.timezone ?? undefined,
    until: iso(s.until),
    maxRuns: s.maxRuns ?? undefined,
    runsSoFar: Math.min(s.runsSoFar, U32_MAX),
    nextAt: iso(s.nextAt),
    status: s.status,
    createdAt: new Date(s.createdAt).toISOString(),
  };
}

function text(value: unknown, field: string, maxChars: number): string {
  if (typeof value !== "string") throw bad(field, "must be a string");
  if (value.length > maxChars) throw bad(field, `is ${value.length} characters; the limit is ${maxChars}`);
  if (!value.isWellFormed()) throw bad(field, "must be valid Unicode (it holds a lone surrogate)");
  if (value.includes("\0")) throw bad(field, "must not contain NUL");
  return value;
}

function optionalText(value: unknown, field: string, maxChars: number): string | undefined {
  return value === undefined ? undefined : text(value, field, maxChars);
}

function time(value: string, field: string): number {
  const t = Date.parse(value);
  if (!TIME.test(value) || Number.isNaN(t)) throw bad(field, "must be an RFC 3339 time with an offset, e.g. 2026-12-01T09:00:00Z");
  return t;
}

function bad(field: string, problem: string): HostProxyError {
  return HostProxyError.invalidInput(`schedule.create: ${field} ${problem}`);
}
