import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildPlugin } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir } from "../../runtime/plugins/locations.js";
import type { PluginArtifact } from "../../runtime/plugins/artifact.js";
import { Sandbox, type SandboxEvent } from "../../runtime/sandbox/index.js";
import type { HostCallHandler } from "../../host-proxies/types.js";
import { PROBE_PLUGIN } from "../helpers/runtime.js";

const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "not served" } });
let artifact: PluginArtifact;

before(async () => {
  artifact = await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() });
});

/** Whether `promise` has settled by now. */
function tracker(promise: Promise<unknown>): () => boolean {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  return () => done;
}

const busy = () => new Promise((resolve) => setTimeout(resolve, 200));

async function spinners(sandbox: Sandbox, deadlineMs: number) {
  const plugin = await sandbox.load(artifact);
  const runs = await Promise.all([1, 2].map((i) => sandbox.acquire(plugin, { label: `spin-${i}`, agent: "runaway", handler })));
  const calls = runs.map((run) => run.call("loop", "{}", { timeoutMs: deadlineMs }));
  for (const call of calls) call.catch(() => undefined);
  return { plugin, runs, calls, settled: calls.map(tracker) };
}

test("two runs of one agent spinning cannot starve a third run: its call finishes before their deadlines", async () => {
  const events: SandboxEvent[] = [];
  const sandbox = new Sandbox({ workers: 2, poolSize: 1, memoryMaxMb: 64, onEvent: (e) => events.push(e) });
  try {
    const { plugin, runs, calls, settled } = await spinners(sandbox, 60_000);
    await busy();
    const other = await sandbox.acquire(plugin, { label: "other", agent: "polite", handler });
    assert.deepEqual(JSON.parse(await other.call("echo", JSON.stringify({ hello: 1 }))), { hello: 1 });
    assert.deepEqual(settled.map((s) => s()), [false, false], "the spinners are still within their deadlines");
    for (const run of runs) run.abort("test over");
    await Promise.allSettled(calls);
  } finally {
    await sandbox.close();
  }
});

test("a run whose instance already sits on the spinner's worker is moved to the free one", async () => {
  const events: SandboxEvent[] = [];
  const sandbox = new Sandbox({ workers: 2, poolSize: 1, memoryMaxMb: 64, movePatienceMs: 20, onEvent: (e) => events.push(e) });
  try {
    const plugin = await sandbox.load(artifact);
    // Instances of three other runs, made (and called once) before anything spins: one per
    // worker at least, so one of them shares the spinner's worker.
    const others = await Promise.all([1, 2, 3].map((i) => sandbox.acquire(plugin, { label: `other-${i}`, agent: "polite", handler })));
    for (const other of others) await other.call("echo", "{}");
    const spinning = await spinners(sandbox, 60_000);
    await busy();
    const answers = await Promise.all(others.map((other, i) => other.call("echo", JSON.stringify({ i }))));
    assert.deepEqual(answers.map((a) => JSON.parse(a)), [{ i: 0 }, { i: 1 }, { i: 2 }]);
    assert.deepEqual(spinning.settled.map((s) => s()), [false, false]);
    for (const run of spinning.runs) run.abort("test over");
    await Promise.allSettled(spinning.calls);
  } finally {
    await sandbox.close();
  }
});

test("control: with no share held back (calls_per_agent = workers), the third run's call waits for a spinner's deadline", async () => {
  const sandbox = new Sandbox({ workers: 2, poolSize: 1, memoryMaxMb: 64, callsPerRun: 2, callsPerAgent: 2 });
  try {
    const { plugin, calls, settled } = await spinners(sandbox, 1_500);
    await busy();
    const other = await sandbox.acquire(plugin, { label: "other", agent: "polite", handler });
    await other.call("echo", "{}");
    assert.ok(settled.some((s) => s()), "a spinner's deadline had to fire first");
    await Promise.allSettled(calls);
  } finally {
    await sandbox.close();
  }
});

test("the operator's max_call_timeout_ms cuts a longer deadline an agent asks for", async () => {
  const sandbox = new Sandbox({ workers: 2, poolSize: 0, memoryMaxMb: 64, maxCallTimeoutMs: 300 });
  try {
    const plugin = await sandbox.load(artifact);
    const run = await sandbox.acquire(plugin, { label: "long", agent: "greedy", handler });
    // Asked for a minute; stopped at the cap.
    await assert.rejects(run.call("loop", "{}", { timeoutMs: 60_000 }), (error: Error & { code?: string }) => error.code === "deadline_exceeded" && /300 ms/.test(error.message));
    // Control: under the cap, the call's own deadline holds.
    const control = await sandbox.acquire(plugin, { label: "short", agent: "greedy", handler });
    await assert.rejects(control.call("loop", "{}", { timeoutMs: 200 }), (error: Error) => /200 ms/.test(error.message));
  } finally {
    await sandbox.close();
  }
});
