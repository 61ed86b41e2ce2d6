import assert from "node:assert/strict";
import { test } from "node:test";
import { ConflictError } from "../../runtime/errors.js";
import { firingRunId, openRuntimeScheduler } from "../../runtime/schedules/index.js";
import { quietModel } from "./_fixtures.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

test("a real runtime: a scheduled run starts through submitRun with the captured grant and is recorded", async () => {
  let t = Date.parse("2026-03-01T10:00:00Z");
  const clock = { now: () => t };
  const made = await testRuntime({ clock });
  try {
    const work = await tempDir();
    await defineTestAgent(made.runtime, "writer", { mounts: [{ guest: "/w", host: work, mode: "rw" }, { guest: "/x", host: work }] });
    const scheduler = await openRuntimeScheduler(made.runtime);
    const narrow = { "fs.read": { mounts: [{ guest: "/w", host: work }] } };
    const s = await scheduler.create({
      agent: "writer",
      task: "echo on a timer",
      toolCalls: [{ name: "probe.echo", input: { n: 1 } }],
      grants: narrow,
      ownerToken: "tok_owner",
      cron: "*/15 * * * *",
      maxRuns: 2,
    });
    for (const minute of [15, 30, 45]) {
      t = Date.parse(`2026-03-01T10:${minute}:00Z`);
      await scheduler.tick();
    }
    const firings = await scheduler.firings(s.id);
    assert.deepEqual(firings.map((f) => f.status), ["started", "started"], JSON.stringify(firings));
    assert.equal((await scheduler.get(s.id))!.status, "done");
    for (const firing of firings) {
      const record = (await made.runtime.records.get(firing.runId!))!;
      assert.equal(record.agent, "writer");
      assert.equal(record.ownerToken, "tok_owner");
      assert.deepEqual(record.taskGrants, s.capturedGrants, "the run holds the captured grant, not the agent's");
      assert.deepEqual(Object.keys(record.taskGrants as object), ["fs.read"]);
    }
  } finally {
    await made.dispose();
  }
});

test("a real runtime starts a caller-chosen run id once: the second start is run_exists (explicit calls and model-driven)", async () => {
  const made = await testRuntime({ modelProvider: () => quietModel });
  try {
    const work = await tempDir();
    await defineTestAgent(made.runtime, "writer", { mounts: [{ guest: "/w", host: work }] });
    const starts = [
      { runId: firingRunId("sch_explicit", 1), agent: "writer", toolCalls: [{ name: "probe.echo", input: { n: 1 } }] },
      { runId: firingRunId("sch_model", 1), agent: "writer", task: "say done" },
    ];
    for (const start of starts) {
      const first = await made.runtime.submitRun(start);
      await first.settled;
      assert.equal(first.run.id, start.runId);
      await assert.rejects(made.runtime.submitRun(start), (error: unknown) => error instanceof ConflictError && error.code === "run_exists");
      assert.equal((await made.runtime.records.get(start.runId))?.agent, "writer");
    }
  } finally {
    await made.dispose();
  }
});
