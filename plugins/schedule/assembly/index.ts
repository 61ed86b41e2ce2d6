/**
 * The `schedule` plugin: an agent schedules later runs, lists and cancels its own, over
 * `clawhive:host/schedule`. Which agents it may schedule, how many schedules it may hold, and
 * the grant each schedule captures are the host's business, decided on every call; the host
 * also shows and cancels only the schedules this agent's runs made.
 *
 * `list_schedules` only reads, but the `schedule` capability defaults to Guarded: an agent
 * manifest lowers it to Safe with an acknowledged `approvals.lower_risk` entry.
 *
 * AssemblyScript, compiled to a core module of a few KiB (see docs/plugins.md).
 */
import { definePlugin, JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { cancel, create, list, ScheduleInfo, ScheduleSpec } from "../../sdk-as/host/schedule";

class ListSchedules extends Tool {
  constructor() {
    super(
      "list_schedules",
      "List the schedules this agent's runs created (oldest first), with their status and next run.",
      '{"type":"object","properties":{},"additionalProperties":false}',
      ["schedule"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const found = list();
    const error = found.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const w = new JsonWriter().beginObject().key("schedules").beginArray();
    for (let i = 0; i < found.value.length; i++) writeInfo(w, unchecked(found.value[i]));
    return Outcome.ok(w.endArray().endObject().text());
  }
}

class CreateSchedule extends Tool {
  constructor() {
    super(
      "create_schedule",
      "Schedule a later run of an agent (a person approves it first): once at a time (at, RFC 3339 " +
        "with an offset, e.g. 2026-12-01T09:00:00Z), or at each tick of a cron expression (cron, e.g. " +
        "\"0 9 * * 1-5\", read in timezone, default UTC; until and max_runs end it). The task is what the " +
        "agent's model works on then. The run gets this run's grant (for this agent) or the target " +
        "agent's, never more than this run has.",
      '{"type":"object","properties":{"agent":{"type":"string","description":"The agent to run, e.g. this agent\'s own name"},' +
        '"task":{"type":"string","description":"What the run should do"},' +
        '"at":{"type":"string","description":"One run at this time, e.g. 2026-12-01T09:00:00Z"},' +
        '"cron":{"type":"string","description":"A run at each tick, e.g. 0 9 * * 1-5"},' +
        '"timezone":{"type":"string","description":"IANA time zone of cron, e.g. Europe/Stockholm"},' +
        '"until":{"type":"string","description":"No run after this time (cron only)"},' +
        '"max_runs":{"type":"integer","description":"At most this many runs (cron only)"}},' +
        '"required":["agent","task"],"additionalProperties":false}',
      ["schedule"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    if (input.has("at") == input.has("cron")) return Outcome.fail(ToolError.invalidInput("at, cron: give exactly one: at (one run) or cron (repeated runs)"));
    const spec = new ScheduleSpec();
    spec.agent = <string>input.string("agent");
    spec.task = <string>input.string("task");
    spec.at = input.string("at");
    spec.cron = input.string("cron");
    spec.timezone = input.string("timezone");
    spec.until = input.string("until");
    const maxRuns = input.number("max_runs");
    if (maxRuns != null) {
      if (!maxRuns.isInteger() || maxRuns.value < 1 || maxRuns.value > 4294967295) return Outcome.fail(ToolError.invalidInput("max_runs: expected a whole number of at least 1"));
      spec.maxRuns = <i64>maxRuns.value;
    }
    const created = create(spec);
    const error = created.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const w = new JsonWriter().beginObject().key("created");
    writeInfo(w, created.value);
    return Outcome.ok(w.endObject().text());
  }
}

class CancelSchedule extends Tool {
  constructor() {
    super(
      "cancel_schedule",
      "Cancel one of this agent's schedules by id (a person approves it first); runs it already started go on.",
      '{"type":"object","properties":{"id":{"type":"string","description":"A schedule id from list_schedules, sch_…"}},"required":["id"],"additionalProperties":false}',
      ["schedule"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    const id = <string>input.string("id");
    const cancelled = cancel(id);
    const error = cancelled.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    return Outcome.ok(new JsonWriter().beginObject().key("id").string(id).key("cancelled").bool(cancelled.value).endObject().text());
  }
}

function optionU32(w: JsonWriter, v: i64): JsonWriter {
  return v < 0 ? w.null() : w.integer(v);
}

function writeInfo(w: JsonWriter, s: ScheduleInfo): void {
  w.beginObject()
    .key("id").string(s.id)
    .key("agent").string(s.agent)
    .key("task").string(s.task)
    .key("kind").string(s.kind)
    .key("at").nullable(s.at)
    .key("cron").nullable(s.cron)
    .key("timezone").nullable(s.timezone)
    .key("until").nullable(s.until)
    .key("max_runs");
  optionU32(w, s.maxRuns)
    .key("runs_so_far").integer(<i64>s.runsSoFar)
    .key("next_at").nullable(s.nextAt)
    .key("status").string(s.status)
    .key("created_at").string(s.createdAt)
    .endObject();
}

definePlugin([new ListSchedules(), new CreateSchedule(), new CancelSchedule()]);

export { cabi_realloc, describe, call, post_describe, post_call } from "../../sdk-as/index";
