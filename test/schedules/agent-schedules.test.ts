/**
 * Agents creating schedules through the `schedule` plugin, in a whole runtime: every layer of
 * the creating run bounds what a schedule may target, how many there may be, and the grant it
 * captures; an agent sees and cancels only what its own runs made.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import type { RunRecord } from "../../runtime/runs/records.js";
import { spawnSubAgent, type SpawnResult } from "../../runtime/runs/sub-agents.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDir, testRuntime } from "../helpers/runtime.js";
import { quietModel } from "./_fixtures.js";

const SCHEDULE_PLUGIN = join(PROJECT_ROOT, "plugins", "schedule");
let t = Date.parse("2026-06-01T08:00:00Z");
const clock = { now: () => t };
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;


let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let other: string;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ clock, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN, SCHEDULE_PLUGIN], modelProvider: () => quietModel }));
  work = await tempDir();
  other = await tempDir();
  const reads = { mounts: [{ guest: "/w", host: work }, { guest: "/o", host: other }] };
  const safeList = ["schedule.list_schedules"];
  await defineTestAgent(runtime, "planner", {
    plugins: ["schedule"],
    lowerToSafe: safeList,
    extraGrants: { schedule: { max_schedules: 2, agents: ["planner", "quiet", "keeper", "ghost"] }, "fs.read": reads },
  });
  await defineTestAgent(runtime, "rival", { plugins: ["schedule"], lowerToSafe: safeList, extraGrants: { schedule: { max_schedules: 5, agents: ["rival"] } } });
  await defineTestAgent(runtime, "outsider", { plugins: ["schedule"], lowerToSafe: safeList });
  // Targets: one within the planner's grant (log only), one wider (kv, which the planner lacks).
  await defineTestAgent(runtime, "quiet", { plugins: ["probe"] });
  await defineTestAgent(runtime, "keeper", { plugins: ["probe"], extraGrants: { kv: { namespace: "k", quota_bytes: 64 } } });
});
after(() => dispose());

type Outcome = { status: string; output?: Record<string, unknown>; error?: { kind: string; message: string; denial?: { reason: string; message: string } } };

/** Runs explicit ToolCalls, a person approving each Guarded one; the record and its approvals. */
async function plan(agent: string, calls: Array<[tool: string, input: Record<string, unknown>]>, options: { grants?: unknown; owner?: string } = {}): Promise<{ record: RunRecord; outcomes: Outcome[]; approved: number }> {
  const { run, settled } = await runtime.submitRun({
    agent,
    toolCalls: calls.map(([name, input]) => ({ name: `schedule.${name}`, input })),
    ...(options.grants === undefined ? {} : { grants: options.grants }),
    ...(options.owner === undefined ? {} : { ownerToken: options.owner }),
  });
  await settled;
  let approved = 0;
  for (let record = (await runtime.records.get(run.id))!; ; record = (await runtime.records.get(run.id))!) {
    if (record.status !== "awaiting_approval") return { record, outcomes: record.outcomes as Outcome[], approved };
    assert.ok(approved < calls.length, "one approval per Guarded call at most");
    await runtime.approvals.decide(record.pending!.approvalId, { decision: "approve", by: "alice" });
    approved++;
    await runtime.continueRun(run.id);
  }
}

const once = (agent: string, task = "remind me", at = iso(t + HOUR)) => ["create_schedule", { agent, task, at }] as [string, Record<string, unknown>];
const created = (o: Outcome | undefined) => {
  assert.equal(o?.status, "ok", JSON.stringify(o));
  return (o!.output as { created: { id: string; agent: string; status: string } }).created;
};
const listed = async (agent: string) => {
  const { outcomes } = await plan(agent, [["list_schedules", {}]]);
  assert.equal(outcomes[0]?.status, "ok", JSON.stringify(outcomes[0]));
  return (outcomes[0]!.output as { schedules: Array<{ id: string }> }).schedules.map((s) => s.id);
};
const cancelAll = async (agent: string) => {
  for (const s of await runtime.scheduler.list({ createdByAgent: agent, status: "active" })) await runtime.scheduler.cancel(s.id);
};

describe("agents create schedules through the schedule plugin", () => {
  it("creates within the grant after a person approves; the schedule records its creator and owner", async () => {
    const { outcomes, approved, record } = await plan("planner", [once("planner", "water the plants")], { owner: "tok_a" });
    assert.equal(approved, 1, "create_schedule is Guarded");
    const info = created(outcomes[0]);
    const stored = (await runtime.scheduler.get(info.id))!;
    assert.equal(stored.agent, "planner");
    assert.equal(stored.task, "water the plants");
    assert.equal(stored.createdByAgent, "planner");
    assert.equal(stored.createdByRun, record.id);
    assert.equal(stored.ownerToken, "tok_a", "the runs it starts belong to whoever owns the creating run");
    const { records } = await runtime.audit.query({ runId: record.id, kind: "host_call", limit: 10 });
    const create = records.find((r) => r.hostCall?.function === "create");
    const args = JSON.parse(String(create?.args)) as Record<string, unknown>;
    assert.deepEqual([args.fn, args.agent, args.existing], ["create", "planner", 0]);
    await cancelAll("planner");
  });

  it("is denied for an agent not granted schedule; control: the granted agent's call is allowed", async () => {
    const { outcomes } = await plan("outsider", [once("outsider")]);
    assert.equal(outcomes[0]?.error?.denial?.reason, "not-granted", JSON.stringify(outcomes[0]));
    assert.deepEqual(await runtime.scheduler.list({ createdByAgent: "outsider" }), []);
    const control = await plan("rival", [once("rival")]);
    created(control.outcomes[0]);
    await cancelAll("rival");
  });

  it("refuses an agent the grant does not list", async () => {
    const { outcomes } = await plan("planner", [once("rival")]);
    assert.equal(outcomes[0]?.error?.denial?.reason, "agent-not-allowed", JSON.stringify(outcomes[0]));
  });

  it("is denied past max_schedules; cancelling one makes room again", async () => {
    const { outcomes } = await plan("planner", [once("planner"), once("planner"), once("planner")]);
    const [a, b] = [created(outcomes[0]), created(outcomes[1])];
    assert.equal(outcomes[2]?.error?.denial?.reason, "schedule-limit", JSON.stringify(outcomes[2]));
    assert.equal((await runtime.scheduler.list({ createdByAgent: "planner", status: "active" })).length, 2);
    const again = await plan("planner", [["cancel_schedule", { id: a.id }], once("planner")]);
    assert.deepEqual(again.outcomes[0]?.output, { id: a.id, cancelled: true });
    created(again.outcomes[1]);
    assert.equal((await runtime.scheduler.get(b.id))!.status, "active");
    await cancelAll("planner");
  });

  it("a task narrower than the agent is what the schedule captures and what the fired run gets", async () => {
    const narrow = { schedule: { max_schedules: 1, agents: ["planner"] }, "fs.read": { mounts: [{ guest: "/w", host: work }] } };
    const { outcomes } = await plan("planner", [once("planner", "read /w", iso(t + HOUR)), once("planner")], { grants: narrow, owner: "tok_n" });
    const info = created(outcomes[0]);
    // The task's max_schedules (1) holds, though the agent's is 2: every layer decides.
    assert.equal(outcomes[1]?.error?.denial?.reason, "schedule-limit", JSON.stringify(outcomes[1]));
    const stored = (await runtime.scheduler.get(info.id))!;
    const captured = stored.capturedGrants as Record<string, { mounts?: unknown[] }>;
    assert.deepEqual(Object.keys(captured).sort(), ["fs.read", "schedule"]);
    assert.equal(captured["fs.read"]!.mounts!.length, 1, "one mount, not the agent's two");
    t += HOUR;
    const report = await runtime.scheduler.tick();
    assert.equal(report.fired, 1);
    const [firing] = await runtime.scheduler.firings(info.id);
    assert.equal(firing?.status, "started", JSON.stringify(firing));
    const fired = (await runtime.records.get(firing!.runId!))!;
    assert.equal(fired.agent, "planner");
    assert.equal(fired.ownerToken, "tok_n");
    assert.deepEqual(fired.taskGrants, stored.capturedGrants, "the fired run holds the captured grant");
  });

  it("a schedule for another agent whose manifest is wider than the creator is refused; control: a narrower one is made", async () => {
    const { outcomes } = await plan("planner", [once("keeper"), once("quiet")]);
    assert.equal(outcomes[0]?.error?.denial?.reason, "wider-than-creator", JSON.stringify(outcomes[0]));
    assert.match(outcomes[0]!.error!.denial!.message, /grants\.kv.*agent planner/);
    const quiet = created(outcomes[1]);
    assert.equal(quiet.agent, "quiet");
    assert.deepEqual(Object.keys((await runtime.scheduler.get(quiet.id))!.capturedGrants as object), ["log"]);
    // A task that narrowed away log cannot hand it to a schedule either.
    const narrowed = await plan("planner", [once("quiet")], { grants: { schedule: { max_schedules: 2, agents: ["quiet"] } } });
    assert.equal(narrowed.outcomes[0]?.error?.denial?.reason, "wider-than-creator");
    assert.match(narrowed.outcomes[0]!.error!.denial!.message, /the task/);
    assert.equal(await runtime.scheduler.list({ createdByAgent: "planner", status: "active" }).then((l) => l.length), 1);
    await cancelAll("planner");
  });

  it("list and cancel see only the agent's own schedules, not a person's, not another agent's", async () => {
    const person = await runtime.scheduler.create({ agent: "planner", task: "a person's", at: t + HOUR });
    const rivals = created((await plan("rival", [once("rival")])).outcomes[0]);
    const mine = created((await plan("planner", [once("planner")])).outcomes[0]);
    // Ended schedules of earlier tests are listed too (with their status): each agent's own only.
    const [planners, rivalsList] = [await listed("planner"), await listed("rival")];
    assert.ok(planners.includes(mine.id) && !planners.includes(person.id) && !planners.includes(rivals.id), JSON.stringify(planners));
    assert.ok(rivalsList.includes(rivals.id) && !rivalsList.includes(mine.id) && !rivalsList.includes(person.id), JSON.stringify(rivalsList));
    for (const id of [...planners, ...rivalsList]) assert.notEqual((await runtime.scheduler.get(id))!.createdByAgent, null);
    assert.ok(planners.every((id) => !rivalsList.includes(id)));
    const { outcomes } = await plan("planner", [
      ["cancel_schedule", { id: person.id }],
      ["cancel_schedule", { id: rivals.id }],
      ["cancel_schedule", { id: "sch_00000000-0000-0000-0000-000000000000" }],
      ["cancel_schedule", { id: "x".repeat(5000) }],
      ["cancel_schedule", { id: mine.id }],
      ["cancel_schedule", { id: mine.id }],
    ]);
    for (const o of outcomes.slice(0, 3)) {
      assert.equal(o.error?.kind, "not-found", JSON.stringify(o));
      assert.doesNotMatch(o.error!.message, /cancelled|active|rival|person/, "no hint whose it is");
    }
    assert.equal(outcomes[3]?.error?.kind, "invalid-input", JSON.stringify(outcomes[3]));
    assert.deepEqual(outcomes[4]?.output, { id: mine.id, cancelled: true });
    assert.deepEqual(outcomes[5]?.output, { id: mine.id, cancelled: false }, "already ended: its own, so it may know");
    assert.equal((await runtime.scheduler.get(person.id))!.status, "active");
    assert.equal((await runtime.scheduler.get(rivals.id))!.status, "active");
    await runtime.scheduler.cancel(person.id);
    await cancelAll("rival");
  });

  it("a sub-agent's schedules are held to each ancestor: its max_schedules and its grant", async () => {
    const base = { model: { provider: "anthropic", id: "test-model" }, system_prompt: "test", plugins: [{ name: "schedule", version: "*" }] };
    await runtime.defineAgent({
      ...base,
      name: "minion",
      description: "a sub-agent that schedules",
      grants: { log: {}, schedule: { max_schedules: 5, agents: ["minion", "quiet"] } },
      approvals: { lower_risk: [{ tool: "schedule.create_schedule", to: "safe", acknowledged: true }] },
    });
    await runtime.defineAgent({
      ...base,
      name: "boss",
      description: "spawns minion",
      grants: { log: {}, "agent.spawn": { agents: ["minion"] }, schedule: { max_schedules: 1, agents: ["minion", "quiet"] } },
      sub_agents: ["minion"],
      limits: { max_depth: 1 },
    });
    const parent = await runtime.startRun({ agent: "boss" });
    const outcomes = (r: SpawnResult) => {
      assert.notEqual(r.status, "denied", JSON.stringify(r));
      return (r as Extract<SpawnResult, { outcomes: unknown[] }>).outcomes as Outcome[];
    };
    const call = (agent: string) => ({ name: "schedule.create_schedule", input: { agent, task: "t", at: iso(t + HOUR) } });
    // Its own agent's grant (max_schedules 5) is wider than the parent's (1): not captured.
    const [own] = outcomes(await spawnSubAgent(runtime, parent, { agent: "minion", toolCalls: [call("minion")] }));
    assert.equal(own?.error?.denial?.reason, "wider-than-creator", JSON.stringify(own));
    assert.match(own!.error!.denial!.message, /grants\.schedule.*parent agent boss/);
    // Control and limit: the parent's max_schedules (1) holds though the child's agent allows 5.
    const [first, second] = outcomes(await spawnSubAgent(runtime, parent, { agent: "minion", toolCalls: [call("quiet"), call("quiet")] }));
    assert.equal(created(first).agent, "quiet");
    assert.equal(second?.error?.denial?.reason, "schedule-limit", JSON.stringify(second));
    assert.equal((await runtime.scheduler.list({ createdByAgent: "minion", status: "active" })).length, 1);
    await parent.end();
    await cancelAll("minion");
  });

  const bad: Array<[what: string, input: Record<string, unknown>, kind: string, message: RegExp]> = [
    ["a huge task", { agent: "planner", task: "x".repeat(20_000), at: iso(t + 2 * HOUR) }, "invalid-input", /task is 20000 characters; the limit is 16000/],
    ["a bad cron", { agent: "planner", task: "t", cron: "every day" }, "invalid-input", /cron: "every day"/],
    ["a past time", { agent: "planner", task: "t", at: "2020-01-01T00:00:00Z" }, "invalid-input", /at: 2020-01-01T00:00:00\.000Z has passed/],
    ["a time without an offset", { agent: "planner", task: "t", at: "2030-01-01T09:00" }, "invalid-input", /at must be an RFC 3339 time/],
    ["an unknown time zone", { agent: "planner", task: "t", cron: "0 9 * * *", timezone: "Mars/Olympus" }, "invalid-input", /timezone: "Mars\/Olympus"/],
    ["max_runs on a one-shot", { agent: "planner", task: "t", at: iso(t + 2 * HOUR), max_runs: 3 }, "invalid-input", /max_runs: only a cron schedule/],
    ["an unknown agent the grant names", { agent: "ghost", task: "t", at: iso(t + 2 * HOUR) }, "invalid-input", /agent ghost: no such agent/],
    ["an empty task", { agent: "planner", task: "  ", at: iso(t + 2 * HOUR) }, "invalid-input", /task must not be empty/],
  ];
  it("refuses adversarial input naming the field, storing nothing; control: a good cron schedule is made", async () => {
    const { outcomes } = await plan("planner", [...bad.map(([, input]) => ["create_schedule", input] as [string, Record<string, unknown>]), ["create_schedule", { agent: "planner", task: "t", cron: "0 9 * * 1-5", timezone: "Europe/Stockholm", max_runs: 3 }]]);
    for (const [i, [what, , kind, message]] of bad.entries()) {
      assert.equal(outcomes[i]?.error?.kind, kind, `${what}: ${JSON.stringify(outcomes[i])}`);
      assert.match(outcomes[i]!.error!.message, message, what);
    }
    const good = created(outcomes[bad.length]);
    assert.deepEqual((await runtime.scheduler.list({ createdByAgent: "planner", status: "active" })).map((s) => s.id), [good.id]);
    await cancelAll("planner");
  });
});
