/**
 * Typed WIT exports beside the describe/call contract, measured in one sandbox:
 * - typed_export_call: a typed export's call cost beyond the plugin's own work (round trip minus
 *   time in worker), the same input as `tool_call`'s echo: JSON parsed, lowered to WIT values,
 *   the result lifted back to JSON;
 * - typed_export_call_ratio: typed_export_call ÷ the describe/call echo's, both measured in one
 *   loop: blocks of each in turn, the median of the per-round ratios of medians.
 */
import { join } from "node:path";
import { buildPlugin } from "../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox, type SandboxPlugin } from "../runtime/sandbox/index.js";
import type { HostCallHandler } from "../host-proxies/types.js";
import { latency, value, type Metrics } from "./metrics.js";
import { probePlugin } from "./sandbox.js";
import { interleaved } from "./interleave.js";

const TYPED = join(PROJECT_ROOT, "bench", "plugins", "typed-echo");
const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "unused" } });

export async function benchTyped(options: { quick?: boolean } = {}): Promise<Metrics> {
  const n = Math.round((options.quick ? 0.2 : 1) * 5000);
  const sandbox = new Sandbox({ poolSize: 0 });
  try {
    const typed = await sandbox.load(await buildPlugin(TYPED, { cacheDir: defaultBuildCacheDir() }));
    const echo = await probePlugin(sandbox);
    const input = JSON.stringify({ query: "a typical small tool input", limit: 10 });
    // One loop, blocks of each in turn, so both see the same machine state (interleave.ts).
    const rounds = 10;
    const figures = await interleaved(rounds, () => overheads(sandbox, typed, input, n / rounds), () => overheads(sandbox, echo, input, n / rounds));
    return {
      typed_export_call: latency(figures.a),
      typed_export_call_ratio: value(figures.ratio, "ratio"),
    };
  } finally {
    await sandbox.close();
  }
}

async function overheads(sandbox: Sandbox, plugin: SandboxPlugin, input: string, n: number): Promise<number[]> {
  const instance = await sandbox.acquire(plugin, { label: "typed-bench", handler });
  const samples: number[] = [];
  try {
    for (let i = 0; i < 200; i++) await instance.call("echo", input);
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await instance.call("echo", input);
      samples.push((performance.now() - started) * 1000 - instance.lastGuestUs);
    }
  } finally {
    instance.destroy();
  }
  return samples;
}
