import assert from "node:assert/strict";
import { test } from "node:test";
import { ClawhiveError } from "../../runtime/errors.js";
import { firingRunId, Scheduler } from "../../runtime/schedules/index.js";
import { agent, harness, MINUTE, NARROW, T0, WIDE } from "./_fixtures.js";

test("a one-shot fires once at its time, then is done", async () => {
  const h = await harness();
  const s = await h.scheduler.create({ agent: "reporter", task: "summarise", at: T0 + 5 * MINUTE });
  assert.equal(s.status, "active");
  h.clock.t = T0 + 4 * MINUTE;
  assert.deepEqual(await h.scheduler.tick(), { fired: 0, missed: 0 }, "not yet due");
  h.clock.t = T0 + 5 * MINUTE + 10;
  assert.deepEqual(await h.scheduler.tick(), { fired: 1, missed: 0 });
  h.clock.t += MINUTE;
  assert.deepEqual(await h.scheduler.tick(), { fired: 0, missed: 0 });
  assert.equal(h.submitted.length, 1);
  assert.deepEqual(h.submitted[0], { runId: firingRunId(s.id, T0 + 5 * MINUTE), agent: "reporter", task: "summarise", grants: WIDE });
  const after = (await h.scheduler.get(s.id))!;
  assert.equal(after.status, "done");
  assert.equal(after.nextAt, null);
  assert.equal(after.runsSoFar, 1);
  const [firing] = await h.scheduler.firings(s.id);
  assert.equal(firing?.status, "started");
  assert.equal(firing?.runId, firingRunId(s.id, T0 + 5 * MINUTE));
  assert.equal(firing?.dueAt, T0 + 5 * MINUTE);
});

test("cron fires at each tick until max_runs, then is done", async () => {
  const h = await harness();
  const s = await h.scheduler.create({ agent: "reporter", task: "t", cron: "*/10 * * * *", maxRuns: 3 });
  assert.equal(s.nextAt, T0 + 10 * MINUTE);
  for (let m = 1; m <= 60; m++) {
    h.clock.t = T0 + m * MINUTE;
    await h.scheduler.tick();
  }
  const after = (await h.scheduler.get(s.id))!;
  assert.equal(h.submitted.length, 3);
  assert.equal(after.status, "done");
  assert.equal(after.runsSoFar, 3);
  assert.deepEqual((await h.scheduler.firings(s.id)).map((f) => f.dueAt).sort(), [10, 20, 30].map((m) => T0 + m * MINUTE));
});

test("cron stops at until: no firing after it", async () => {
  const h = await harness();
  const s = await h.scheduler.create({ agent: "reporter", task: "t", cron: "*/10 * * * *", until: T0 + 35 * MINUTE });
  for (let m = 1; m <= 60; m++) {
    h.clock.t = T0 + m * MINUTE;
    await h.scheduler.tick();
  }
  assert.equal(h.submitted.length, 3, "10, 20 and 30 past; 40 is after until");
  assert.equal((await h.scheduler.get(s.id))!.status, "done");
});

test("cron reads its expression in the given time zone", async () => {
  const h = await harness();
  const s = await h.scheduler.create({ agent: "reporter", task: "t", cron: "0 9 * * *", timezone: "Europe/Stockholm" });
  assert.equal(new Date(s.nextAt!).toISOString(), "2026-01-01T08:00:00.000Z", "09:00 in Stockholm (UTC+1 in winter)");
});

test("restart: a one-shot due while no runtime was up is marked missed, never run; cron resumes from now", async () => {
  const h = await harness();
  const once = await h.scheduler.create({ agent: "reporter", task: "once", at: T0 + 5 * MINUTE });
  const cron = await h.scheduler.create({ agent: "reporter", task: "cron", cron: "0 * * * *" });
  // Down for three hours: a fresh Scheduler on the same store, as a restarted runtime would build.
  h.clock.t = T0 + 3 * 60 * MINUTE + 30 * MINUTE;
  const restarted = await h.peer("node-restarted");
  assert.deepEqual(await restarted.tick(), { fired: 0, missed: 2 });
  assert.equal(h.submitted.length, 0, "nothing ran late");
  assert.equal((await restarted.get(once.id))!.status, "missed");
  const [onceFiring] = await restarted.firings(once.id);
  assert.equal(onceFiring?.status, "missed");
  const resumed = (await restarted.get(cron.id))!;
  assert.equal(resumed.status, "active");
  assert.equal(resumed.nextAt, T0 + 4 * 60 * MINUTE, "the next hour after now: missed ticks are skipped");
  assert.equal(resumed.runsSoFar, 0, "a missed tick does not count against max_runs");
  assert.deepEqual((await restarted.firings(cron.id)).map((f) => [f.dueAt, f.status]), [[T0 + 60 * MINUTE, "missed"]], "the first missed tick is recorded");
  h.clock.t = T0 + 4 * 60 * MINUTE + 1000;
  assert.deepEqual(await restarted.tick(), { fired: 1, missed: 0 });
  assert.equal(h.submitted[0]?.task, "cron");
});

test("a due time a little late (within missedAfterMs) still fires", async () => {
  const h = await harness({ missedAfterMs: 5 * MINUTE });
  await h.scheduler.create({ agent: "reporter", task: "t", at: T0 + MINUTE });
  h.clock.t = T0 + 5 * MINUTE;
  assert.deepEqual(await h.scheduler.tick(), { fired: 1, missed: 0 });
});

test("two schedulers on one store never fire the same due time twice", async () => {
  const h = await harness();
  const peer = await h.peer();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await h.scheduler.create({ agent: "reporter", task: `cron ${i}`, cron: "* * * * *" })).id);
  ids.push((await h.scheduler.create({ agent: "reporter", task: "once", at: T0 + 30 * MINUTE })).id);
  for (let m = 1; m <= 60; m++) {
    h.clock.t = T0 + m * MINUTE;
    // Both nodes look at once: their reads and claims interleave on the store.
    const [a, b] = await Promise.all([h.scheduler.tick(), peer.tick()]);
    assert.equal(a.fired + b.fired, 5 + (m === 30 ? 1 : 0), `minute ${m}`);
  }
  assert.equal(h.submitted.length, 5 * 60 + 1);
  const keys = h.submitted.map((s) => s.task);
  for (let i = 0; i < 5; i++) assert.equal(keys.filter((k) => k === `cron ${i}`).length, 60);
  let firings = 0;
  for (const id of ids) firings += (await h.scheduler.firings(id, { limit: 1000 })).length;
  assert.equal(firings, 5 * 60 + 1);
});

test("a schedule runs with the grant captured at creation, even after the agent's manifest widens", async () => {
  const reporter = agent("reporter", NARROW);
  const h = await harness({ agents: [reporter] });
  const whole = await h.scheduler.create({ agent: "reporter", task: "whole", at: T0 + MINUTE });
  const narrowed = await h.scheduler.create({ agent: "reporter", task: "narrowed", at: T0 + MINUTE, grants: { "fs.read": { mounts: [{ guest: "/data", host: "/tmp" }] } } });
  assert.deepEqual(whole.capturedGrants, NARROW, "no grant given: the agent's grant as it is now");
  h.agents[0] = agent("reporter", WIDE); // the manifest widens after the schedules were made
  h.clock.t = T0 + MINUTE;
  assert.deepEqual(await h.scheduler.tick(), { fired: 2, missed: 0 });
  for (const input of h.submitted) assert.deepEqual(input.grants, NARROW, `${input.task}: never the widened grant`);
  assert.ok((await h.scheduler.firings(narrowed.id)).every((f) => f.status === "started"));
});

test("a firing whose captured grant no longer fits the agent fails, recorded, and nothing runs", async () => {
  const h = await harness();
  const s = await h.scheduler.create({ agent: "reporter", task: "t", cron: "*/5 * * * *", maxRuns: 2 });
  h.agents[0] = agent("reporter", NARROW); // narrowed below what the schedule captured
  h.clock.t = T0 + 5 * MINUTE;
  assert.deepEqual(await h.scheduler.tick(), { fired: 1, missed: 0 });
  assert.equal(h.submitted.length, 0, "never run wider than the agent allows now");
  const [firing] = await h.scheduler.firings(s.id);
  assert.equal(firing?.status, "failed");
  assert.match(firing?.error ?? "", /captured_grants/);
  // Control: restored, the next tick runs with the captured grant.
  h.agents[0] = agent("reporter", WIDE);
  h.clock.t = T0 + 10 * MINUTE;
  await h.scheduler.tick();
  assert.deepEqual(h.submitted.map((i) => i.grants), [WIDE]);
  assert.equal((await h.scheduler.get(s.id))!.status, "done", "a failed firing counts towards max_runs");
});

test("a submit that throws is recorded as a failed firing; the schedule goes on", async () => {
  const h = await harness();
  const failing = await Scheduler.open({
    store: h.store, clock: h.clock, node: "n", agents: () => h.agents,
    submit: async () => {
      throw new Error("agent reporter: model unavailable");
    },
  });
  const s = await failing.create({ agent: "reporter", task: "t", cron: "*/5 * * * *" });
  h.clock.t = T0 + 5 * MINUTE;
  await failing.tick();
  const [firing] = await failing.firings(s.id);
  assert.equal(firing?.status, "failed");
  assert.equal(firing?.error, "agent reporter: model unavailable");
  assert.equal((await failing.get(s.id))!.status, "active");
});

test("cancel: no firing after it; cancelling twice or an unknown id is refused", async () => {
  const h = await harness();
  const s = await h.scheduler.create({ agent: "reporter", task: "t", cron: "* * * * *" });
  const cancelled = await h.scheduler.cancel(s.id);
  assert.equal(cancelled.status, "cancelled");
  h.clock.t = T0 + 10 * MINUTE;
  assert.deepEqual(await h.scheduler.tick(), { fired: 0, missed: 0 });
  await assert.rejects(h.scheduler.cancel(s.id), (e: ClawhiveError) => e.code === "schedule_ended" && e.status === 409);
  await assert.rejects(h.scheduler.cancel("sch_nope"), (e: ClawhiveError) => e.status === 404);
});

test("create refuses bad input, and stores nothing", async () => {
  const h = await harness();
  const base = { agent: "reporter", task: "t" };
  const cases: Array<[what: string, input: Parameters<Scheduler["create"]>[0], field: string]> = [
    ["an unknown agent", { ...base, agent: "ghost", at: T0 + MINUTE }, ""],
    ["neither at nor cron", { ...base }, "at"],
    ["both at and cron", { ...base, at: T0 + MINUTE, cron: "* * * * *" }, "at"],
    ["at in the past", { ...base, at: T0 - 1 }, "at"],
    ["at now", { ...base, at: T0 }, "at"],
    ["a bad cron expression", { ...base, cron: "every minute" }, "cron"],
    ["a bad time zone", { ...base, cron: "* * * * *", timezone: "Mars/Olympus" }, "timezone"],
    ["until in the past", { ...base, cron: "* * * * *", until: T0 - 1 }, "until"],
    ["until before the first tick", { ...base, cron: "0 0 1 1 *", until: T0 + MINUTE }, "cron"],
    ["max_runs 0", { ...base, cron: "* * * * *", maxRuns: 0 }, "max_runs"],
    ["max_runs 1.5", { ...base, cron: "* * * * *", maxRuns: 1.5 }, "max_runs"],
    ["until on a one-shot", { ...base, at: T0 + MINUTE, until: T0 + 2 * MINUTE }, "until"],
    ["max_runs on a one-shot", { ...base, at: T0 + MINUTE, maxRuns: 2 }, "max_runs"],
    ["a grant wider than the agent's", { ...base, at: T0 + MINUTE, grants: { "fs.read": { mounts: [{ guest: "/etc", host: "/etc" }] } } }, "grants.fs.read"],
    ["empty task text", { ...base, task: "  ", at: T0 + MINUTE }, "task"],
  ];
  for (const [what, input, field] of cases) {
    await assert.rejects(h.scheduler.create(input), (e: ClawhiveError & { field?: string }) => {
      assert.ok(e instanceof ClawhiveError, what);
      if (field !== "") assert.equal(e.field?.startsWith(field), true, `${what}: field ${String(e.field)}: ${e.message}`);
      return true;
    }, what);
  }
  assert.deepEqual(await h.scheduler.list(), []);
  // Control: the same shapes, valid, are accepted.
  await h.scheduler.create({ ...base, cron: "* * * * *", timezone: "Europe/Stockholm", until: T0 + 60 * MINUTE, maxRuns: 2 });
  await h.scheduler.create({ ...base, at: T0 + MINUTE, grants: NARROW });
  assert.equal((await h.scheduler.list()).length, 2);
});

test("list filters by owner and status", async () => {
  const h = await harness();
  await h.scheduler.create({ agent: "reporter", task: "a", at: T0 + MINUTE, ownerToken: "tok_a" });
  const b = await h.scheduler.create({ agent: "reporter", task: "b", at: T0 + MINUTE, ownerToken: "tok_b" });
  await h.scheduler.cancel(b.id);
  assert.deepEqual((await h.scheduler.list({ ownerToken: "tok_a" })).map((s) => s.task), ["a"]);
  assert.deepEqual((await h.scheduler.list({ status: "cancelled" })).map((s) => s.task), ["b"]);
});

test("start() fires on its own timer and stop() ends it", async () => {
  const h = await harness();
  h.clock.t = Date.now();
  const real = { now: () => Date.now() };
  const timed = await Scheduler.open({ store: h.store, clock: real, node: "timer", agents: () => h.agents, pollMs: 50,
    submit: async (input) => {
      h.submitted.push(input);
      return { runId: "run_timer" };
    } });
  timed.start();
  await timed.create({ agent: "reporter", task: "soon", at: Date.now() + 100 });
  const deadline = Date.now() + 30_000;
  while (h.submitted.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await timed.stop();
  assert.equal(h.submitted.length, 1);
});
