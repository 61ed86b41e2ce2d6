/**
 * The project's own sandbox figures (issue definitions):
 * - cold: instantiate and bind in a live worker from a cached compiled module (the issue's
 *   definition); `_first_call` variants add the instance's first guest call, which pays for
 *   touching fresh memory (~0.5 ms);
 * - instance_ready_pooled_paced (was instance_ready_warm): acquire to first guest result while
 *   runs arrive every 10 ms and the pool refills between them: a queue at 100 runs/s, not the
 *   cost of one warm instance;
 * - fresh_instances_per_s: sustained cold instantiations per second with no pool;
 * - tool_call_overhead_bare (was tool_call) and tool_call_roundtrip_bare (was tool_call_roundtrip):
 *   a tool call on a bare instance (no run, policy or audit), beyond the plugin's own work and whole;
 * - host_call_bare (was host_call): one bridged host call to a no-op handler (no policy or audit),
 *   from a guest loop of host calls;
 * - rss_per_instance: resident memory per live bound instance.
 */
import { buildPlugin } from "../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox, type Instance, type SandboxPlugin } from "../runtime/sandbox/index.js";
import type { HostCallHandler } from "../host-proxies/types.js";
import { join } from "node:path";
import { latency, sleep, value, type Metrics } from "./metrics.js";

const PROBE = join(PROJECT_ROOT, "bench", "plugins", "echo");
const handler: HostCallHandler = async (call) =>
  call.fn === "mounts" ? { ok: true, value: [{ guest: "/w", mode: "rw" }] } : { ok: false, error: { tag: "io", val: "unused" } };
const binding = (label: string) => ({ label, handler });

export async function probePlugin(sandbox: Sandbox): Promise<SandboxPlugin> {
  return sandbox.load(await buildPlugin(PROBE, { cacheDir: defaultBuildCacheDir() }));
}

export async function benchSandbox(options: { quick?: boolean } = {}): Promise<{ metrics: Metrics; probeCoreWasm: string }> {
  const scale = options.quick ? 0.2 : 1;
  const metrics: Metrics = {};
  const artifact = await buildPlugin(PROBE, { cacheDir: defaultBuildCacheDir() });

  const noPool = new Sandbox({ poolSize: 0 });
  try {
    const plugin = await noPool.load(artifact);
    await warmUp(noPool, plugin);
    metrics.instance_ready_cold = latency(await cold(noPool, plugin, Math.round(200 * scale), false), "ms");
    metrics.instance_ready_cold_first_call = latency(await cold(noPool, plugin, Math.round(200 * scale), true), "ms");
    metrics.fresh_instances_per_s = value(await freshPerSecond(noPool, plugin, Math.round(600 * scale), false), "per_s");
    metrics.fresh_instances_first_call_per_s = value(await freshPerSecond(noPool, plugin, Math.round(600 * scale), true), "per_s");
    const { overhead, roundTrip, perSecond } = await toolCalls(noPool, plugin, Math.round(5000 * scale));
    metrics.tool_call_overhead_bare = latency(overhead);
    metrics.tool_call_roundtrip_bare = latency(roundTrip);
    metrics.tool_calls_per_s = value(perSecond, "per_s");
    metrics.host_call_bare = latency(await hostCalls(noPool, plugin, Math.round(300 * scale)));
  } finally {
    await noPool.close();
  }

  const pooled = new Sandbox({ poolSize: 4 });
  try {
    const plugin = await pooled.load(artifact);
    await warmUp(pooled, plugin);
    metrics.instance_ready_pooled_paced = latency(await warm(pooled, plugin, Math.round(400 * scale)), "ms");
    metrics.rss_per_instance = value(await rssPerInstance(pooled, plugin, Math.round(60 * scale) + 10), "MB");
  } finally {
    await pooled.close();
  }
  return { metrics, probeCoreWasm: join(artifact.dir, "plugin.core.wasm") };
}

/** Lets V8 finish tiering up the 12 MB module so figures are steady-state. */
export async function warmUp(sandbox: Sandbox, plugin: SandboxPlugin): Promise<void> {
  await sandbox.prewarm(plugin);
  for (let i = 0; i < 20; i++) {
    const instance = await sandbox.acquire(plugin, binding("warmup"));
    for (let j = 0; j < 50; j++) await instance.call("echo", "{}");
    await instance.call("hostloop", '{"n":100}');
    instance.destroy();
  }
  await sleep(500);
}

async function cold(sandbox: Sandbox, plugin: SandboxPlugin, n: number, firstCall: boolean): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const instance = await sandbox.acquire(plugin, binding(`cold-${i}`));
    if (firstCall) await instance.call("echo", "{}");
    samples.push((performance.now() - started) * 1000);
    instance.destroy();
  }
  return samples;
}

async function warm(sandbox: Sandbox, plugin: SandboxPlugin, n: number): Promise<number[]> {
  // Runs arrive every 10 ms (100 runs/s), each ending after its first call; the pool refills
  // between arrivals on the background lane.
  await sandbox.prewarm(plugin);
  const samples: number[] = [];
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < n; i++) {
    pending.push(
      (async () => {
        const started = performance.now();
        const instance = await sandbox.acquire(plugin, binding(`warm-${i}`));
        await instance.call("echo", "{}");
        samples.push((performance.now() - started) * 1000);
        instance.destroy();
      })(),
    );
    await sleep(10);
  }
  await Promise.all(pending);
  return samples;
}

async function freshPerSecond(sandbox: Sandbox, plugin: SandboxPlugin, n: number, firstCall: boolean): Promise<number> {
  const concurrency = sandbox.options.workers * 2;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const instance = await sandbox.acquire(plugin, binding("fresh"));
        if (firstCall) await instance.call("echo", "{}");
        instance.destroy();
      }
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

export async function toolCalls(sandbox: Sandbox, plugin: SandboxPlugin, n: number): Promise<{ overhead: number[]; roundTrip: number[]; perSecond: number }> {
  const instance = await sandbox.acquire(plugin, binding("calls"));
  const input = JSON.stringify({ query: "a typical small tool input", limit: 10 });
  const overhead: number[] = [];
  const roundTrip: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await instance.call("echo", input);
    const total = (performance.now() - started) * 1000;
    roundTrip.push(total);
    overhead.push(total - instance.lastGuestUs);
  }
  instance.destroy();
  // Throughput: one run per worker slot, calls back to back.
  const instances: Instance[] = [];
  for (let i = 0; i < sandbox.options.workers * 2; i++) instances.push(await sandbox.acquire(plugin, binding(`tp-${i}`)));
  const started = performance.now();
  await Promise.all(instances.map(async (inst) => {
    for (let i = 0; i < n / instances.length; i++) await inst.call("echo", input);
  }));
  const perSecond = n / ((performance.now() - started) / 1000);
  for (const inst of instances) inst.destroy();
  return { overhead, roundTrip, perSecond };
}

export async function hostCalls(sandbox: Sandbox, plugin: SandboxPlugin, n: number): Promise<number[]> {
  const instance = await sandbox.acquire(plugin, binding("host"));
  const loops = 100;
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    await instance.call("hostloop", JSON.stringify({ n: 0 }));
    const base = instance.lastGuestUs;
    await instance.call("hostloop", JSON.stringify({ n: loops }));
    samples.push((instance.lastGuestUs - base) / loops);
  }
  instance.destroy();
  return samples;
}

/** MB of RSS each of `n` more live instances of `plugin` holds, each called once with `input`. */
export async function rssPerInstance(sandbox: Sandbox, plugin: SandboxPlugin, n: number, input = "{}"): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const settle = async () => {
    gc?.();
    await sleep(300);
    gc?.();
  };
  const held: Instance[] = [];
  // Baseline with a few live instances so per-worker fixed costs (loaded glue) are excluded.
  for (let i = 0; i < 4; i++) held.push(await sandbox.acquire(plugin, binding(`rss-${i}`)));
  for (const instance of held) await instance.call("echo", input);
  await settle();
  const before = process.memoryUsage().rss;
  for (let i = 0; i < n; i++) {
    const instance = await sandbox.acquire(plugin, binding(`rss-more-${i}`));
    await instance.call("echo", input);
    held.push(instance);
  }
  await settle();
  const after = process.memoryUsage().rss;
  for (const instance of held) instance.destroy();
  return (after - before) / n / (1024 * 1024);
}
