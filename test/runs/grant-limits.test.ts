import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Run, Runtime, RunEvent } from "../../runtime/index.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000, memoryMaxMb: 64 } }));
  work = await tempDir();
  await mkdir(join(work, "sub"));
  await mkdir(join(work, "other"));
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

const logLines = (events: readonly RunEvent[]) => events.filter((e) => e.type === "log").length;

describe("log.per_minute", () => {
  const agent = (perMinute: number) => defineTestAgent(runtime, `log${++n}`, { plugins: ["probe"], extraGrants: { log: { per_minute: perMinute } } });

  // One ToolCall writing `times` lines against a grant of `perMinute`.
  const cases = [
    { name: "control: just under the limit, every line is kept", perMinute: 5, times: 4, kept: 4, dropped: 0 },
    { name: "control: at the limit, every line is kept", perMinute: 5, times: 5, kept: 5, dropped: 0 },
    { name: "one over the limit is dropped", perMinute: 5, times: 6, kept: 5, dropped: 1 },
    { name: "a flood keeps the limit and costs one audit row", perMinute: 3, times: 500, kept: 3, dropped: 497 },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const run = await runtime.startRun({ agent: await agent(c.perMinute) });
      const outcome = await run.callTool("probe.log", { message: "hello", times: c.times });
      assert.equal(outcome.status, "ok");
      assert.equal(logLines(run.events), c.kept);
      const { records } = await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 1000 });
      const lines = records.filter((r) => r.hostCall?.proxy === "log" && r.status === "intent");
      assert.equal(lines.length, c.kept, "one intent per kept line");
      const drops = records.filter((r) => r.denial?.reason === "rate-limited");
      if (c.dropped === 0) {
        assert.equal(drops.length, 0);
      } else {
        assert.equal(drops.length, 1, "the drops are one record");
        assert.equal(drops[0]!.status, "denied");
        assert.deepEqual(JSON.parse(drops[0]!.args!), { fn: "write", dropped: c.dropped, per_minute: c.perMinute });
        assert.equal(drops[0]!.toolCall?.name, "probe.log");
      }
      await run.end();
    });
  }

  test("the budget is the run's: a second ToolCall does not get a fresh minute", async () => {
    const run = await runtime.startRun({ agent: await agent(4) });
    await run.callTool("probe.log", { message: "a", times: 3 });
    await run.callTool("probe.log", { message: "b", times: 3 });
    assert.equal(logLines(run.events), 4);
    await run.end();
  });

  test("a task grant's lower per_minute holds over the agent's", async () => {
    const name = await agent(100);
    const run = await runtime.startRun({ agent: name, grants: { log: { per_minute: 2 } } });
    await run.callTool("probe.log", { message: "a", times: 3 });
    assert.equal(logLines(run.events), 2);
    await run.end();
    const control = await runtime.startRun({ agent: name });
    await control.callTool("probe.log", { message: "a", times: 3 });
    assert.equal(logLines(control.events), 3);
    await control.end();
  });
});

describe("fs.mounts() lists the mounts of the current grant", () => {
  const agent = () =>
    defineTestAgent(runtime, `mnt${++n}`, {
      plugins: ["probe"],
      mounts: [
        { guest: "/work", host: work, mode: "rw" },
        { guest: "/again", host: join(work, "other") },
      ],
      lowerToSafe: ["probe.write"],
    });
  const listed = (outcome: Awaited<ReturnType<Run["callTool"]>>) => {
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    const output = (outcome as { output: Array<{ guest: string; mode: string }> }).output;
    return output.map((m) => `${m.guest}:${m.mode}`).sort();
  };
  const ro = (guest: string, host: string) => ({ "fs.read": { mounts: [{ guest, host }] } });

  const cases: Array<{ name: string; grants?: () => Record<string, unknown>; expect: string[] }> = [
    { name: "control: the agent's whole grant lists both mounts", expect: ["/again:ro", "/work:rw"] },
    {
      name: "a task grant dropping a mount",
      grants: () => ({ ...ro("/work", work), "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] } }),
      expect: ["/work:rw"],
    },
    { name: "a task grant making a mount read-only", grants: () => ro("/work", work), expect: ["/work:ro"] },
    { name: "a task grant narrowing a mount to a subfolder", grants: () => ro("/work/sub", join(work, "sub")), expect: ["/work/sub:ro"] },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const run = await runtime.startRun({ agent: await agent(), ...(c.grants ? { grants: c.grants() } : {}) });
      assert.deepEqual(listed(await run.callTool("probe.mounts", {})), c.expect);
      await run.end();
    });
  }

  test("a step's elevation lists what it restores, for that step only", async () => {
    const run = await runtime.startRun({ agent: await agent(), grants: ro("/work", work) });
    assert.deepEqual(listed(await run.callTool("probe.mounts", {})), ["/work:ro"]);
    const elevation = { ...ro("/work", work), "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] } };
    const elevated = await run.callTool("probe.mounts", {}, { elevation });
    assert.deepEqual(listed(elevated), ["/work:rw"]);
    assert.deepEqual(listed(await run.callTool("probe.mounts", {})), ["/work:ro"]);
    await run.end();
  });
});

describe("limits.memory_mb", () => {
  const agent = (memoryMb?: number) =>
    runtime.defineAgent({
      name: `mem${++n}`,
      description: "memory cap test",
      model: { provider: "anthropic", id: "test-model" },
      system_prompt: "test",
      plugins: [{ name: "probe", version: "*" }],
      grants: { log: {} },
      ...(memoryMb === undefined ? {} : { limits: { memory_mb: memoryMb } }),
    }).then((a) => a.name);

  const cases = [
    { name: "an agent's lower cap stops its instance there", memoryMb: 32, cap: 32 },
    { name: "control: without one, the operator's cap holds", memoryMb: undefined, cap: 64 },
    { name: "an agent cannot ask for more than the operator's cap", memoryMb: 1024, cap: 64 },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const run = await runtime.startRun({ agent: await agent(c.memoryMb) });
      assert.equal((await run.callTool("probe.echo", { small: true })).status, "ok", "control: a call within the cap runs");
      const outcome = await run.callTool("probe.bomb", {});
      assert.equal(outcome.status, "error");
      assert.equal((outcome as { error: { kind: string } }).error.kind, "memory-cap");
      assert.match((outcome as { error: { message: string } }).error.message, new RegExp(`memory cap of ${c.cap} MiB`));
      await run.end();
    });
  }
});
