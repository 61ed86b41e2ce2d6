/**
 * Issue-1 figures re-measured through whole runs with policy and audit on, on a file-backed
 * store: every ToolCall passes the risk gate and writes its intent and outcome, every host call
 * is decided against each layer and writes its intent (before) and outcome (after).
 * - tool_call_policy_ratio / host_call_policy_ratio: the call with policy and audit ÷ the same
 *   call on a bare sandbox instance of the same plugin (no run, policy or audit), both measured
 *   in one loop: blocks of each in turn, the median of the per-round ratios (interleave.ts), so
 *   the ratio holds when the machine's load changes (goal ≤ 2). A read's records are committed
 *   off the guest's path (docs/security.md), so host_call_policy_ratio is a read's (fs mounts);
 * - host_call_effect_policy_ratio: the same for an effect (kv set), whose intent is committed
 *   before it happens (goal ≤ 3).
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox } from "../runtime/sandbox/index.js";
import type { HostCallHandler } from "../host-proxies/types.js";
import { latency, value, type Metrics } from "./metrics.js";
import { benchTraced } from "./tracing.js";
import { interleaved, timedCalls } from "./interleave.js";
import { probePlugin, warmUp } from "./sandbox.js";

const ECHO = join(PROJECT_ROOT, "bench", "plugins", "echo");

export async function benchPolicy(options: { quick?: boolean } = {}): Promise<Metrics> {
  const scale = options.quick ? 0.2 : 1;
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-"));
  await mkdir(join(dataDir, "agents"));
  await mkdir(join(dataDir, "work"));
  const bare = new Sandbox({ poolSize: 0 });
  const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [ECHO], sandbox: { poolSize: 4 } });
  try {
    await runtime.defineAgent({
      name: "bench",
      description: "bench agent",
      model: { provider: "anthropic", id: "none" },
      system_prompt: "bench",
      plugins: [{ name: "bench-echo", version: "*" }],
      grants: { "fs.read": { mounts: [{ guest: "/work", host: join(dataDir, "work") }] }, kv: { namespace: "bench" } },
    });
    const input = { query: "a typical small tool input", limit: 10 };
    const inputJson = JSON.stringify(input);
    const metrics: Metrics = {};
    const plugin = await probePlugin(bare);
    await warmUp(bare, plugin);
    // Warm-up: let V8 tier the module up and the store settle.
    const warm = await runtime.startRun({ agent: "bench" });
    for (let i = 0; i < 300; i++) await warm.callTool("bench-echo.echo", input);
    await warm.end();

    metrics.instance_ready_cold_policy = latency(await firstCalls(runtime, Math.round(200 * scale)), "ms");
    const run = await runtime.startRun({ agent: "bench" });
    const instance = await bare.acquire(plugin, { label: "bare", handler: bareHandler });
    try {
      const rounds = Math.max(3, Math.round(30 * scale));
      const block = 100;
      const toolCall = await interleaved(
        rounds,
        () => timedCalls(block, () => run.callTool("bench-echo.echo", input)),
        () => timedCalls(block, () => instance.call("echo", inputJson)),
      );
      metrics.tool_call_policy = latency(toolCall.a);
      metrics.tool_call_roundtrip_bare_beside_policy = latency(toolCall.b);
      metrics.tool_call_policy_ratio = value(toolCall.ratio, "ratio");
      const hostRounds = Math.max(3, Math.round(20 * scale));
      const hostCall = await interleaved(
        hostRounds,
        () => perHostCall(5, (n) => run.callTool("bench-echo.hostloop", { n })),
        () => perHostCall(5, (n) => instance.call("hostloop", JSON.stringify({ n }))),
      );
      metrics.host_call_policy = latency(hostCall.a);
      metrics.host_call_bare_beside_policy = latency(hostCall.b);
      metrics.host_call_policy_ratio = value(hostCall.ratio, "ratio");
      const effectCall = await interleaved(
        hostRounds,
        () => perHostCall(5, (n) => run.callTool("bench-echo.kvloop", { n })),
        () => perHostCall(5, (n) => instance.call("kvloop", JSON.stringify({ n }))),
      );
      metrics.host_call_effect_policy = latency(effectCall.a);
      metrics.host_call_effect_bare_beside_policy = latency(effectCall.b);
      metrics.host_call_effect_policy_ratio = value(effectCall.ratio, "ratio");
    } finally {
      instance.destroy();
    }
    await run.end();
    Object.assign(metrics, await benchTraced(runtime, { rounds: Math.max(3, Math.round(20 * scale)), block: 100, input }));
    metrics.tool_calls_per_s_policy = value(await throughput(runtime, Math.round(6000 * scale)), "per_s");
    return metrics;
  } finally {
    await runtime.close();
    await bare.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const LOOPS = 50;
const bareHandler: HostCallHandler = async (call) => {
  if (call.fn === "mounts") return { ok: true, value: [{ guest: "/w", mode: "rw" }] };
  if (call.fn === "set") return { ok: true, value: undefined };
  return { ok: false, error: { tag: "io", val: "unused" } };
};

/**
 * One host call's cost, the same way on both sides: a guest loop of LOOPS host calls minus the
 * same call with none, over LOOPS (the call's fixed cost cancels out).
 */
async function perHostCall(samples: number, call: (n: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const [base] = await timedCalls(1, () => call(0));
    const [loaded] = await timedCalls(1, () => call(LOOPS));
    out.push((loaded! - base!) / LOOPS);
  }
  return out;
}

/** A run started and its first ToolCall answered: instance from the pool, bound, called. */
async function firstCalls(runtime: Runtime, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const run = await runtime.startRun({ agent: "bench" });
    await run.callTool("bench-echo.echo", {});
    samples.push((performance.now() - started) * 1000);
    await run.end();
  }
  return samples;
}

async function throughput(runtime: Runtime, n: number): Promise<number> {
  const runs = await Promise.all([1, 2, 3, 4].map(() => runtime.startRun({ agent: "bench" })));
  const started = performance.now();
  await Promise.all(runs.map(async (run) => {
    for (let i = 0; i < n / runs.length; i++) await run.callTool("bench-echo.echo", { i });
  }));
  const perSecond = n / ((performance.now() - started) / 1000);
  await Promise.all(runs.map((run) => run.end()));
  return perSecond;
}
