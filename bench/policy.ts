/**
 * Issue-1 figures re-measured through whole runs with policy and audit on, on a file-backed
 * store: every ToolCall passes the risk gate and writes its intent and outcome, every host call
 * is decided against each layer and writes its intent (before) and outcome (after).
 * - tool_call_policy_ratio / host_call_policy_ratio: p50 of tool_call_policy / host_call_policy
 *   ÷ p50 of the same call on a bare sandbox instance (no run, policy or audit), measured in
 *   this group just before (goal ≤ 2).
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime, type Run } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox } from "../runtime/sandbox/index.js";
import { latency, value, type Metrics } from "./metrics.js";
import { benchTraced } from "./tracing.js";
import { toSample } from "./peers/index.js";
import { hostCalls as bareHostCalls, probePlugin, toolCalls as bareToolCalls, warmUp } from "./sandbox.js";

const ECHO = join(PROJECT_ROOT, "bench", "plugins", "echo");

export async function benchPolicy(options: { quick?: boolean } = {}): Promise<Metrics> {
  const scale = options.quick ? 0.2 : 1;
  const bare = await bareReference(scale);
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-"));
  await mkdir(join(dataDir, "agents"));
  await mkdir(join(dataDir, "work"));
  const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [ECHO], sandbox: { poolSize: 4 } });
  try {
    await runtime.defineAgent({
      name: "bench",
      description: "bench agent",
      model: { provider: "anthropic", id: "none" },
      system_prompt: "bench",
      plugins: [{ name: "bench-echo", version: "*" }],
      grants: { "fs.read": { mounts: [{ guest: "/work", host: join(dataDir, "work") }] } },
    });
    const input = { query: "a typical small tool input", limit: 10 };
    const metrics: Metrics = {};
    // Warm-up: let V8 tier the module up and the store settle.
    const warm = await runtime.startRun({ agent: "bench" });
    for (let i = 0; i < 300; i++) await warm.callTool("bench-echo.echo", input);
    await warm.end();

    metrics.instance_ready_cold_policy = latency(await firstCalls(runtime, Math.round(200 * scale)), "ms");
    const run = await runtime.startRun({ agent: "bench" });
    metrics.tool_call_policy = latency(await timed(Math.round(3000 * scale), () => run.callTool("bench-echo.echo", input)));
    const untraced = metrics.tool_call_policy;
    if ("p50" in untraced) Object.assign(metrics, await benchTraced(runtime, { n: Math.round(3000 * scale), input, untracedP50: untraced.p50 }));
    metrics.host_call_policy = latency(await hostCalls(run, Math.round(100 * scale)));
    await run.end();
    metrics.tool_calls_per_s_policy = value(await throughput(runtime, Math.round(6000 * scale)), "per_s");
    const p50 = (name: string) => (metrics[name] as { p50: number }).p50;
    metrics.tool_call_policy_ratio = value(p50("tool_call_policy") / toSample(bare.toolCall).p50, "ratio");
    metrics.host_call_policy_ratio = value(p50("host_call_policy") / toSample(bare.hostCall).p50, "ratio");
    return metrics;
  } finally {
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    samples.push((performance.now() - started) * 1000);
  }
  return samples;
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

async function hostCalls(run: Run, n: number): Promise<number[]> {
  const loops = 50;
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const [base] = await timed(1, () => run.callTool("bench-echo.hostloop", { n: 0 }));
    const [loaded] = await timed(1, () => run.callTool("bench-echo.hostloop", { n: loops }));
    samples.push((loaded! - base!) / loops);
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

/** The same calls on a bare instance of the same plugin: the ratios' denominators. */
async function bareReference(scale: number): Promise<{ toolCall: number[]; hostCall: number[] }> {
  const sandbox = new Sandbox({ poolSize: 0 });
  try {
    const plugin = await probePlugin(sandbox);
    await warmUp(sandbox, plugin);
    const { roundTrip } = await bareToolCalls(sandbox, plugin, Math.round(3000 * scale));
    return { toolCall: roundTrip, hostCall: await bareHostCalls(sandbox, plugin, Math.round(100 * scale)) };
  } finally {
    await sandbox.close();
  }
}
