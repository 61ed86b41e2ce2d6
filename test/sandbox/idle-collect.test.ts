/**
 * The memory of instances that are gone is handed back once their worker idles: a worker parked
 * between tasks allocates nothing, so without a collection of its own the pages its dropped
 * instances touched stayed resident until the next burst of work (~4 MB per ended run).
 * Measured as the process's resident memory (the workers are threads of it).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import type { HostCallHandler } from "../../host-proxies/types.js";
import { buildPlugin } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir } from "../../runtime/plugins/locations.js";
import { Sandbox, type SandboxPlugin } from "../../runtime/sandbox/index.js";
import { PROBE_PLUGIN } from "../helpers/runtime.js";

let sandbox: Sandbox;
let probe: SandboxPlugin;
const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "not served" } });
const INSTANCES = 30;

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;

async function settledRss(until: (mb: number) => boolean, ms = 15_000): Promise<number> {
  const end = Date.now() + ms;
  let mb = rssMb();
  while (!until(mb) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    mb = rssMb();
  }
  return mb;
}

before(async () => {
  sandbox = new Sandbox({ workers: 1, poolSize: 0, callTimeoutMs: 10_000 });
  probe = await sandbox.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
  const warm = await sandbox.acquire(probe, { label: "warm", handler });
  await warm.call("echo", "{}");
  warm.destroy();
});
after(() => sandbox.close());

test("the memory of destroyed instances is returned once their worker idles; control: live instances hold it", async () => {
  const base = await settledRss(() => false, 1_000);
  const live = [];
  for (let i = 0; i < INSTANCES; i++) {
    const instance = await sandbox.acquire(probe, { label: `run-${i}`, handler });
    await instance.call("echo", "{}");
    live.push(instance);
  }
  const held = rssMb();
  // The control: the measure sees what live instances hold.
  assert.ok(held - base > INSTANCES * 1.5, `live instances: ${base.toFixed(0)} → ${held.toFixed(0)} MB`);
  for (const instance of live) instance.destroy();
  const returned = await settledRss((mb) => mb - base < (held - base) * 0.25);
  assert.ok(returned - base < (held - base) * 0.25, `after the instances ended: ${base.toFixed(0)} → ${held.toFixed(0)} → ${returned.toFixed(0)} MB`);
});

test("instances destroyed just before a task are gone when it runs (the destroys ride on it); control: live ones are counted", async () => {
  const [before] = await sandbox.probeWorkers();
  const live = [];
  for (let i = 0; i < 5; i++) {
    const instance = await sandbox.acquire(probe, { label: `ride-${i}`, handler });
    await instance.call("echo", "{}");
    live.push(instance);
  }
  const [held] = await sandbox.probeWorkers();
  assert.equal(held!.instances, before!.instances + 5);
  for (const instance of live.slice(0, 3)) instance.destroy();
  // At once: no time for a destroy to be sent alone.
  const [after] = await sandbox.probeWorkers();
  assert.equal(after!.instances, before!.instances + 2);
  for (const instance of live.slice(3)) instance.destroy();
});
