import type { AgentManifest } from "../agents/index.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.js";
import { firingView, Scheduler, scheduleView } from "../schedules/index.js";
import type { CreateScheduleInput, ScheduleRecord, ScheduleStatus } from "../schedules/index.js";
import { systemClock } from "../store/index.js";
import type { Store } from "../store/index.js";
import { parseCommandArgs } from "./args.js";
import { field, flagText, inert, jsonText } from "./render.js";
import { openExistingStore, openRuntime, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

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

  This command works on the store directly; through a server use the API (/v1/schedules).
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such schedule (cancel: or it has already ended), or the store could
  not be read; 2 bad usage.

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
  const runtime = await openRuntime(values);
  try {
    const scheduler = await storeScheduler(runtime.store, { agents: async () => {
      await runtime.refreshAgents();
      return runtime.agents();
    } });
    const s = await scheduler.create(input);
    console.log(`created schedule ${s.id}: ${describe(s)}; next run ${new Date(s.nextAt!).toISOString()}`);
    return 0;
  } finally {
    await runtime.close();
  }
}

function createInput(values: Record<string, unknown>, base: { agent: string; task: string }): CreateScheduleInput {
  const at = flagText(values, "at");
  const cron = flagText(values, "cron");
  const tz = flagText(values, "tz");
  const until = flagText(values, "until");
  const maxRuns = flagText(values, "max-runs");
  const grants = flagText(values, "grants");
  const toolCalls = flagText(values, "tool-calls");
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
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError(`--${name}: not JSON`, { field: name });
  }
}

function toolCallsFlag(value: unknown): CreateScheduleInput["toolCalls"] {
  const ok = Array.isArray(value) && value.length > 0 && value.every((c) => typeof c === "object" && c !== null && typeof (c as { name?: unknown }).name === "string");
  if (!ok) throw new InvalidInputError(`--tool-calls: expected [{"name": "plugin.tool", "input": {...}}, ...]`, { field: "tool-calls" });
  return (value as Array<{ name: string; input?: unknown }>).map((c) => ({ name: c.name, input: c.input ?? {} }));
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, { ...STORE_FLAGS, status: { type: "string" }, json: { type: "boolean" } });
  const status = flagText(values, "status");
  if (status !== undefined && !STATUSES.includes(status as ScheduleStatus)) {
    throw new InvalidInputError(`--status ${status}: expected one of ${STATUSES.join(", ")}`, { field: "status" });
  }
  return withScheduler(values, async (scheduler) => {
    const schedules = await scheduler.list(status === undefined ? {} : { status: status as ScheduleStatus });
    if (values.json === true) {
      console.log(jsonText(schedules.map(scheduleView)));
      return 0;
    }
    if (schedules.length === 0) console.log("no schedules");
    for (const s of schedules) {
      const next = s.nextAt === null ? "-" : new Date(s.nextAt).toISOString();
      console.log(inert(`${s.id}  ${s.status.padEnd(9)}  next ${next.padEnd(24)}  ${s.agent}  ${describe(s)}  ${JSON.stringify(s.task.slice(0, 60))}`));
    }
    return 0;
  });
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, json: { type: "boolean" } });
  const id = one(positionals, "show");
  return withScheduler(values, async (scheduler) => {
    const s = await scheduler.get(id);
    if (s === undefined) return fail(`schedule ${id}: not found`);
    const firings = await scheduler.firings(id, { limit: 20 });
    if (values.json === true) {
      console.log(jsonText({ schedule: scheduleView(s), firings: firings.map(firingView) }));
      return 0;
    }
    const iso = (t: number | null) => (t === null ? "-" : new Date(t).toISOString());
    const lines = [
      `schedule ${s.id}`,
      ...field("agent", s.agent),
      ...field("status", s.status),
      ...field("when", describe(s)),
      ...field("next run", iso(s.nextAt)),
      ...field("runs so far", String(s.runsSoFar)),
      ...field("task", s.task),
      ...(s.toolCalls === null ? [] : field("tool calls", JSON.stringify(s.toolCalls))),
      ...field("grants", JSON.stringify(s.capturedGrants)),
      ...field("created", iso(s.createdAt)),
      ...(s.endedAt === null ? [] : field("ended", iso(s.endedAt))),
      firings.length === 0 ? "  no firings yet" : "  firings (latest first):",
      ...firings.map((f) => `    ${iso(f.dueAt)}  ${f.status.padEnd(8)} ${f.runId ?? ""}${f.error === null ? "" : inert(f.error)}`),
    ];
    console.log(lines.join("\n"));
    return 0;
  });
}

async function cancel(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS });
  const id = one(positionals, "cancel");
  return withScheduler(values, async (scheduler) => {
    try {
      await scheduler.cancel(id);
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof ConflictError) return fail(error.message);
      throw error;
    }
    console.log(`cancelled schedule ${id}`);
    return 0;
  });
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

function describe(s: ScheduleRecord): string {
  if (s.kind === "once") return `once at ${new Date(s.at!).toISOString()}`;
  const limits = [s.timezone === null ? "" : ` in ${s.timezone}`, s.until === null ? "" : `, until ${new Date(s.until).toISOString()}`, s.maxRuns === null ? "" : `, at most ${s.maxRuns} runs`];
  return `cron "${s.cron}"${limits.join("")}`;
}

/** A Scheduler that only reads and writes schedules: it never ticks, so it starts no run. */
function storeScheduler(store: Store, options: { agents?: () => Promise<readonly AgentManifest[]> } = {}): Promise<Scheduler> {
  return Scheduler.open({
    store,
    clock: systemClock,
    node: `cli_${process.pid}`,
    agents: options.agents ?? (() => []),
    submit: () => Promise.reject(new Error("the CLI does not start scheduled runs")),
  });
}

async function withScheduler(values: Record<string, unknown>, work: (scheduler: Scheduler) => Promise<number>): Promise<number> {
  const store = await openExistingStore(values);
  try {
    return await work(await storeScheduler(store));
  } finally {
    await store.close();
  }
}
