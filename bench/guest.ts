/**
 * Group `guest`: a first-party plugin compiled from AssemblyScript beside the same tool built with
 * componentize-js (a StarlingMonkey engine per instance), on one sandbox: bench-as-echo and
 * bench-echo. Timings are interleaved (interleave.ts): blocks of each in turn, the order swapped
 * every round, each ratio AssemblyScript ÷ StarlingMonkey.
 *
 * - guest_component_mb_{as,js}: the component's size;
 * - guest_first_call_{as,js}[_ratio]: acquire a fresh instance (instantiate and bind in a live
 *   worker, compiled module cached) and make its first call, as a run's first ToolCall does;
 * - guest_warm_call_{as,js}[_ratio]: a call on a live instance, whole round trip; `_guest_`
 *   figures are the guest's own time inside it (instance.lastGuestUs);
 * - guest_rss_per_instance_{as,js}: resident memory per live bound instance (a live run's plugin);
 * - guest_build_{cold,warm}_s_{as,js}: a build from source into an empty cache, wall time, in a
 *   new build child and then in the same child warm; guest_build_{cold,warm}_cpu_s_{as,js} the
 *   CPU of the build children (read from /proc while they work: on a loaded machine the wall
 *   time says more about the load than the build); once each, not interleaved (not with --quick).
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildComponent, buildPlugin } from "../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox, type Instance, type SandboxPlugin } from "../runtime/sandbox/index.js";
import type { HostCallHandler } from "../host-proxies/types.js";
import { interleaved, median } from "./interleave.js";
import { latency, round, sleep, value, type Metrics } from "./metrics.js";
import { rssPerInstance } from "./sandbox.js";

const AS_ECHO = join(PROJECT_ROOT, "bench", "plugins", "as-echo");
const JS_ECHO = join(PROJECT_ROOT, "bench", "plugins", "echo");
const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "unused" } });
const binding = (label: string) => ({ label, handler });
const INPUT = JSON.stringify({ query: "a typical small tool input", limit: 10 });

export async function benchGuest(options: { quick?: boolean } = {}): Promise<Metrics> {
  const scale = options.quick ? 0.2 : 1;
  const metrics: Metrics = {};
  const cacheDir = defaultBuildCacheDir();
  const sides = { as: AS_ECHO, js: JS_ECHO };
  const sandbox = new Sandbox({ poolSize: 0 });
  try {
    const plugins: Record<string, SandboxPlugin> = {};
    for (const [side, dir] of Object.entries(sides)) {
      metrics[`guest_component_mb_${side}`] = value((await buildComponent(dir, { cacheDir })).bytes.length / 1048576, "MB");
      plugins[side] = await sandbox.load(await buildPlugin(dir, { cacheDir }));
      await firstCalls(sandbox, plugins[side]!, 20);
    }
    const rounds = Math.max(2, Math.round(20 * scale));
    const first = await interleaved(rounds, () => firstCalls(sandbox, plugins.as!, 10), () => firstCalls(sandbox, plugins.js!, 10));
    metrics.guest_first_call_as = latency(first.a, "ms");
    metrics.guest_first_call_js = latency(first.b, "ms");
    metrics.guest_first_call_ratio = value(first.ratio, "ratio");

    const live = { as: await sandbox.acquire(plugins.as!, binding("warm-as")), js: await sandbox.acquire(plugins.js!, binding("warm-js")) };
    const guestUs = { as: [] as number[], js: [] as number[] };
    for (const side of ["as", "js"] as const) await calls(live[side], 200, []);
    const warm = await interleaved(rounds, () => calls(live.as, 200, guestUs.as), () => calls(live.js, 200, guestUs.js));
    metrics.guest_warm_call_as = latency(warm.a);
    metrics.guest_warm_call_js = latency(warm.b);
    metrics.guest_warm_call_ratio = value(warm.ratio, "ratio");
    metrics.guest_warm_call_guest_as = latency(guestUs.as);
    metrics.guest_warm_call_guest_js = latency(guestUs.js);
    metrics.guest_warm_call_guest_ratio = value(median(guestUs.as) / median(guestUs.js), "ratio");
    live.as.destroy();
    live.js.destroy();

    for (const side of ["as", "js"] as const) {
      metrics[`guest_rss_per_instance_${side}`] = value(round(await rssPerInstance(sandbox, plugins[side]!, Math.round(40 * scale) + 10, INPUT)), "MB");
    }
  } finally {
    await sandbox.close();
  }
  if (!options.quick) {
    for (const [side, dir] of Object.entries(sides)) {
      // The first build starts a build child (loading the compiler); the second, right after,
      // finds that child warm, as a first start's later builds do.
      for (const phase of ["cold", "warm"]) {
        const { wall, cpu } = await coldBuild(dir);
        metrics[`guest_build_${phase}_s_${side}`] = value(wall, "s");
        metrics[`guest_build_${phase}_cpu_s_${side}`] = value(cpu, "s");
      }
      // Idle children leave after 2 s: the next side starts its own.
      await sleep(3_000);
    }
  }
  return metrics;
}

/** `n` fresh instances, each acquired and called once, in µs. */
async function firstCalls(sandbox: Sandbox, plugin: SandboxPlugin, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const instance = await sandbox.acquire(plugin, binding(`first-${i}`));
    await instance.call("echo", INPUT);
    samples.push((performance.now() - started) * 1000);
    instance.destroy();
  }
  return samples;
}

/** `n` calls on a live instance, in µs; the guest's own time of each is pushed to `guest`. */
async function calls(instance: Instance, n: number, guest: number[]): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await instance.call("echo", INPUT);
    samples.push((performance.now() - started) * 1000);
    guest.push(instance.lastGuestUs);
  }
  return samples;
}

/** One build into an empty cache: its wall time, and the CPU of the build children that ran it. */
async function coldBuild(dir: string): Promise<{ wall: number; cpu: number }> {
  const cacheDir = await mkdtemp(join(tmpdir(), "clawhive-bench-guest-build-"));
  // A descendant's CPU so far, by pid, polled while the build runs (a child may leave before the end).
  // A warm child alive before the build counts from its CPU then.
  const seen = new Map<number, number>();
  const base = new Map(childPids().map((pid) => [pid, cpuSeconds(pid)]));
  const poll = () => {
    for (const pid of childPids()) seen.set(pid, Math.max(seen.get(pid) ?? 0, cpuSeconds(pid) - (base.get(pid) ?? 0)));
  };
  const timer = setInterval(poll, 50);
  try {
    const started = performance.now();
    await buildComponent(dir, { cacheDir });
    poll();
    return { wall: (performance.now() - started) / 1000, cpu: [...seen.values()].reduce((a, b) => a + b, 0) };
  } finally {
    clearInterval(timer);
    await rm(cacheDir, { recursive: true, force: true });
  }
}

/** This process's descendants (Linux: /proc/<pid>/stat's fourth field is the parent's pid). */
function childPids(): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) parents.set(Number(name), Number(stat[1]));
  }
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) if (!ours.has(pid) && ours.has(parent)) (ours.add(pid), (grew = true));
  }
  ours.delete(process.pid);
  return [...ours];
}

/** utime + stime of `pid`, in seconds (clock ticks of 1/100 s on Linux). */
function cpuSeconds(pid: number): number {
  const stat = readStat(pid);
  return stat ? (Number(stat[11]) + Number(stat[12])) / 100 : 0;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): state first. */
function readStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}
