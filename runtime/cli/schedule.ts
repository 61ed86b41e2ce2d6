import { userInfo } from "node:os";
import type { ClawhiveClient, FiringView, ScheduleView } from "../client/client.js";
import { InvalidInputError } from "../errors.js";
import type { CreateScheduleInput, ScheduleStatus } from "../schedules/index.js";
import { parseCommandArgs } from "./args.js";
import { resolveServer, segment, SERVER_FLAGS, SERVER_FLAGS_HELP, ServerError } from "./client.js";
import { withClient } from "./command-client.js";
import { field, flagText, inert, jsonOut } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import { CLIENT_JSON, parseArgument } from "../json/index.js";

/** A schedule as the API sends it. */
type View = ScheduleView;
/** The firings `show` prints, latest first. */
const SHOWN_FIRINGS = 20;
/** Reading and cancelling need no plugin: the first-party ones are not installed or upgraded for it. */
const READ = { existing: true, pluginDirs: [] };

export const scheduleHelp = `clawhive schedule — runs that start by themselves: once at a time, or on a cron expression

  clawhive schedule create AGENT "TASK" --at TIME
  clawhive schedule create AGENT "TASK" --cron EXPR [--tz ZONE] [--until TIME] [--max-runs N]
                           [--grants JSON] [--tool-calls JSON]
  clawhive schedule list [--status S] [--json]
  clawhive schedule show ID [--json]
  clawhive schedule cancel ID

  create: TASK is the task text the agent's model works on (or, with --tool-calls, the
  explicit calls [{"name": "files.read_file", "input": {...}}] run in order).
  --at TIME         one run at TIME (RFC 3339 with an offset, e.g. 2026-12-01T09:00:00Z)
  --cron EXPR       a run at each tick of EXPR (5 fields; 6 with seconds first), e.g. "0 9 * * 1-5"
  --tz ZONE         the IANA time zone EXPR is read in (default UTC), e.g. Europe/Stockholm
  --until TIME      no run after TIME (cron only)
  --max-runs N      at most N runs (cron only)
  --grants JSON     a grant narrower than the agent's; without it the agent's grant as it is
                    now. Every run gets this grant, captured now: widening the agent's manifest
                    later does not widen the schedule; narrowing it below the captured grant
                    makes each later run fail (recorded on the schedule) instead of running wider.
  --agents DIR      where agent manifests live (default the project's capabilities/; env
                    CLAWHIVE_AGENTS_DIR)

  A running 'clawhive serve' on the same store starts the runs (within its poll interval,
  10 s); runs due while no runtime is up are not run late: a one-shot is marked missed, a cron
  schedule goes on from its next tick (the missed tick is recorded as a missed firing).
  list: --status active, done, missed or cancelled (default all); --json for JSON.
  show: the schedule and its latest firings (due time, status, run id or error).
  cancel: no run starts after it; runs already started go on.

  A schedule an agent's run created (the schedule plugin) shows who: created by agent and run.

  Without --server a runtime opened here on the store answers through the same API routes
  (the schedule is a person's, owned by no token); with it, the API (/v1/schedules) of a
  running server, which checks against its own agents (--agents does not combine with it)
  and shows a client token only its own schedules.
${STORE_FLAGS_HELP}
${SERVER_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such schedule (cancel: or it has already ended), or the store or
  server could not be reached; 2 bad usage.

  Example:
    clawhive schedule create reporter "Summarise yesterday's log" --cron "0 7 * * *" --tz Europe/Stockholm`;

const usage = "usage: clawhive schedule create AGENT TASK (--at TIME | --cron EXPR) | list | show ID | cancel ID";
const STATUSES: readonly ScheduleStatus[] = ["active", "done", "missed", "cancelled"];
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

export async function scheduleCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "create") return create(rest);
  if (sub === "list") return list(rest);
  if (sub === "show") return show(rest);
  if (sub === "cancel") return cancel(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown schedule command '${sub}'; ${usage}`);
}

const CREATE_FLAGS = {
  ...STORE_FLAGS,
  ...SERVER_FLAGS,
  agents: { type: "string" },
  at: { type: "string" },
  cron: { type: "string" },
  tz: { type: "string" },
  until: { type: "string" },
  "max-runs": { type: "string" },
  grants: { type: "string" },
  "tool-calls": { type: "string" },
} as const;

async function create(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, CREATE_FLAGS);
  const [agent, task, ...extra] = positionals;
  if (agent === undefined || task === undefined || extra.length > 0) throw new InvalidInputError(`usage: clawhive schedule create AGENT "TASK" (--at TIME | --cron EXPR)`);
  const input = createInput(values, { agent, task }); // checked before the runtime starts
  if (values.agents !== undefined && (await resolveServer(values)) !== undefined) {
    throw new InvalidInputError("--agents and --server do not combine: the server checks against its own agents", { field: "agents" });
  }
  const create = (client: ClawhiveClient) => client.request<{ schedule: View }>("POST", "/v1/schedules", { json: createBody(input) });
  // On the store a person creates it (no token owns it); through a server, the token.
  const { schedule: s } = await withClient(values, create, { actor: `cli:${userInfo().username}` });
  console.log(`created schedule ${s.id}: ${describe(s)}; next run ${String(s.next_at)}`);
  return 0;
}

/** The API's body: times as RFC 3339 text. */
function createBody(input: CreateScheduleInput): Record<string, unknown> {
  const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
  return {
    agent: input.agent,
    task: input.task,
    tool_calls: input.toolCalls,
    grants: input.grants,
    at: iso(input.at),
    cron: input.cron,
    timezone: input.timezone,
    until: iso(input.until),
    max_runs: input.maxRuns,
  };
}

function createInput(values: Record<string, unknown>, base: { agent: string; task: string }): CreateScheduleInput {
  const at = flagText(values, "at");
  const cron = flagText(values, "cron");
  const tz = flagText(values, "tz");
  const until = flagText(values, "until");
  const maxRuns = flagText(values, "max-runs");
  const grants = flagText(values, "grants");
  const toolCalls = flagText(values, "tool-calls");
  // The Scheduler's own words, said before any runtime or server is asked.
  if ((at === undefined) === (cron === undefined)) throw new InvalidInputError("at, cron: give exactly one: at (a time, for one run) or cron (an expression, for repeated runs)", { field: at === undefined ? "at" : "cron" });
  if (maxRuns !== undefined && !/^\d{1,7}$/.test(maxRuns)) throw new InvalidInputError(`--max-runs ${maxRuns}: expected a whole number`, { field: "max-runs" });
  return {
    ...base,
    ...(at === undefined ? {} : { at: time(at, "at") }),
    ...(cron === undefined ? {} : { cron }),
    ...(tz === undefined ? {} : { timezone: tz }),
    ...(until === undefined ? {} : { until: time(until, "until") }),
    ...(maxRuns === undefined ? {} : { maxRuns: Number(maxRuns) }),
    ...(grants === undefined ? {} : { grants: jsonFlag(grants, "grants") }),
    ...(toolCalls === undefined ? {} : { toolCalls: toolCallsFlag(jsonFlag(toolCalls, "tool-calls")) }),
  };
}

function time(text: string, name: string): number {
  const t = Date.parse(text);
  if (!TIME.test(text) || Number.isNaN(t)) throw new InvalidInputError(`--${name} ${text}: expected an RFC 3339 time with an offset, e.g. 2026-12-01T09:00:00Z`, { field: name });
  return t;
}

function jsonFlag(text: string, name: string): unknown {
  return parseArgument(text, CLIENT_JSON, { at: `--${name}`, field: name });
}

function toolCallsFlag(value: unknown): CreateScheduleInput["toolCalls"] {
  const ok = Array.isArray(value) && value.length > 0 && value.every((c) => typeof c === "object" && c !== null && typeof (c as { name?: unknown }).name === "string");
  if (!ok) throw new InvalidInputError(`--tool-calls: expected [{"name": "plugin.tool", "input": {...}}, ...]`, { field: "tool-calls" });
  return (value as Array<{ name: string; input?: unknown }>).map((c) => ({ name: c.name, input: c.input ?? {} }));
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, status: { type: "string" }, json: { type: "boolean" } });
  const status = flagText(values, "status");
  if (status !== undefined && !STATUSES.includes(status as ScheduleStatus)) {
    throw new InvalidInputError(`--status ${status}: expected one of ${STATUSES.join(", ")}`, { field: "status" });
  }
  const schedules = await withClient(values, (client) => client.listSchedules(status === undefined ? {} : { status }), READ);
  if (values.json === true) {
    console.log(jsonOut(schedules));
    return 0;
  }
  if (schedules.length === 0) console.log("no schedules");
  for (const s of schedules) {
    const next = typeof s.next_at === "string" ? s.next_at : "-";
    console.log(inert(`${String(s.id)}  ${String(s.status).padEnd(9)}  next ${next.padEnd(24)}  ${String(s.agent)}  ${describe(s)}  ${JSON.stringify(String(s.task).slice(0, 60))}`));
  }
  return 0;
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  const id = one(positionals, "show");
  const found = await withClient(values, (client) => shown(client, id), READ);
  if (found === undefined) return fail(`schedule ${id}: not found`);
  const { schedule: s, firings } = found;
  if (values.json === true) {
    console.log(jsonOut({ schedule: s, firings }));
    return 0;
  }
  const text = (value: unknown) => (typeof value === "string" ? value : "-");
  const creator = s.created_by as { agent: string; run: string | null } | null;
  const lines = [
    `schedule ${String(s.id)}`,
    ...field("agent", String(s.agent)),
    ...field("status", String(s.status)),
    ...field("when", describe(s)),
    ...field("next run", text(s.next_at)),
    ...field("runs so far", String(s.runs_so_far)),
    ...field("task", String(s.task)),
    ...(s.tool_calls === null ? [] : field("tool calls", JSON.stringify(s.tool_calls))),
    ...field("grants", JSON.stringify(s.grants)),
    ...(creator === null ? [] : field("created by", `agent ${creator.agent}${creator.run === null ? "" : ` (run ${creator.run})`}`)),
    ...field("created", text(s.created_at)),
    ...(s.ended_at === null ? [] : field("ended", text(s.ended_at))),
    firings.length === 0 ? "  no firings yet" : "  firings (latest first):",
    ...firings.map((f) => `    ${text(f.due_at)}  ${String(f.status).padEnd(8)} ${typeof f.run_id === "string" ? f.run_id : ""}${typeof f.error === "string" ? inert(f.error) : ""}`),
  ];
  console.log(lines.join("\n"));
  return 0;
}

interface Shown {
  schedule: View;
  firings: FiringView[];
}

async function shown(client: ClawhiveClient, id: string): Promise<Shown | undefined> {
  try {
    const found = await client.request<Shown>("GET", `/v1/schedules/${segment(id)}`);
    return { schedule: found.schedule, firings: found.firings.slice(0, SHOWN_FIRINGS) };
  } catch (error) {
    // Someone else's schedule is not shown to exist: the server says 404 for both.
    if (error instanceof ServerError && error.status === 404) return undefined;
    throw error;
  }
}

async function cancel(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS });
  const id = one(positionals, "cancel");
  try {
    await withClient(values, (client) => client.request("DELETE", `/v1/schedules/${segment(id)}`), READ);
  } catch (error) {
    if (error instanceof ServerError && error.status === 404) return fail(`schedule ${id}: not found`);
    if (error instanceof ServerError && error.status === 409) return fail(error.message);
    throw error;
  }
  console.log(`cancelled schedule ${id}`);
  return 0;
}

function one(positionals: string[], sub: string): string {
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new InvalidInputError(`usage: clawhive schedule ${sub} ID`);
  return id;
}

function fail(message: string): number {
  console.error(`clawhive: ${message}`);
  return 1;
}

function describe(s: View): string {
  if (s.kind === "once") return `once at ${String(s.at)}`;
  const limits = [s.timezone === null ? "" : ` in ${String(s.timezone)}`, s.until === null ? "" : `, until ${String(s.until)}`, s.max_runs === null ? "" : `, at most ${String(s.max_runs)} runs`];
  return `cron "${String(s.cron)}"${limits.join("")}`;
}
