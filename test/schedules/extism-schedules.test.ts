/**
 * An Extism plugin creating a schedule, in a whole runtime: `schedule_create` in
 * `extism:host/user` reaches the same schedule proxy as a component's import, through the same
 * grant (the agent's `schedule` grant, its limit) and the same audit.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { extismModulePackage } from "../helpers/extism-modules.js";
import type { ExtismPackage } from "../helpers/extism-probe.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import { quietModel } from "./_fixtures.js";

const t = Date.parse("2026-06-01T08:00:00Z");
/** The clock stands still: no schedule fires during these tests. */
const clock = { now: () => t };
const TASK = "look at the inbox";
/** schedule_create's parameters, as JSON: one schedule-spec, its options null. */
const SPEC = JSON.stringify([{ agent: "writer", task: TASK, at: "2026-06-02T09:00:00Z", cron: null, timezone: null, until: null, maxRuns: null }]);

let runtime: Runtime;
let dispose: () => Promise<void>;
let pkg: ExtismPackage;

before(async () => {
  pkg = await extismModulePackage("extism-planner", {
    capabilities: ["schedule"],
    toolCapabilities: ["schedule"],
    imports: `(import "extism:host/user" "schedule_create" (func $create (param i64) (result i64)))`,
    data: [[4096, SPEC]],
    body: `(drop (call $create (call $block (i32.const 4096) (i32.const ${SPEC.length}))))`,
  });
  ({ runtime, dispose } = await testRuntime({ clock, pluginDirs: [pkg.dir], modelProvider: () => quietModel }));
  const lowerToSafe = ["extism-planner.run"];
  await defineTestAgent(runtime, "writer", { plugins: ["extism-planner"], lowerToSafe, extraGrants: { schedule: { max_schedules: 1, agents: ["writer"] } } });
  await defineTestAgent(runtime, "ungranted", { plugins: ["extism-planner"], lowerToSafe });
});
after(async () => {
  await dispose?.();
  await rm(pkg.dir, { recursive: true, force: true });
});

/** Runs the module's tool once; the run's schedule host calls as audited. */
async function runOnce(agent: string): Promise<Array<{ status: string; reason: string | null }>> {
  const run = await runtime.startRun({ agent });
  const outcome = await run.callTool("extism-planner.run", {});
  assert.equal(outcome.status, "ok", JSON.stringify(outcome));
  await run.end();
  const page = await runtime.audit.query({ runId: run.id, kind: "host_call" });
  return page.records
    .filter((r) => r.hostCall?.proxy === "schedule" && r.hostCall.function === "create" && r.status !== "intent")
    .map((r) => ({ status: r.status, reason: r.denial?.reason ?? null }));
}

test("control: a granted Extism plugin creates a schedule, owned by its agent and audited", async () => {
  assert.deepEqual(await runOnce("writer"), [{ status: "ok", reason: null }]);
  const mine = (await runtime.scheduler.list()).filter((s) => s.createdByAgent === "writer");
  assert.deepEqual(
    mine.map((s) => ({ agent: s.agent, task: s.task, status: s.status })),
    [{ agent: "writer", task: TASK, status: "active" }],
  );
});

test("the grant's limit holds for an Extism plugin: a second live schedule is denied", async () => {
  assert.deepEqual(await runOnce("writer"), [{ status: "denied", reason: "schedule-limit" }]);
  assert.equal((await runtime.scheduler.list()).filter((s) => s.createdByAgent === "writer").length, 1);
});

test("an agent without the schedule grant: the Extism call is denied and nothing is stored", async () => {
  assert.deepEqual(await runOnce("ungranted"), [{ status: "denied", reason: "not-granted" }]);
  assert.equal((await runtime.scheduler.list()).filter((s) => s.createdByAgent === "ungranted").length, 0);
});
