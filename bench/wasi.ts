/**
 * WASI components (clawhive's own WASI 0.2, per instance):
 * - wasi_component_call: round trip of a tool call of a component built with WASI on that reads
 *   the clocks and random through WASI (no host call);
 * - wasi_component_call_ratio: it ÷ the round trip of the plain echo component's tool call in the
 *   same sandbox, measured in one loop (blocks of each in turn, the median of the per-round
 *   ratios: interleave.ts), so the cost WASI adds is one number;
 * - wasi_instance_ready: instantiate and bind the WASI component (its glue and WASI imports).
 */
import { join } from "node:path";
import { buildPlugin } from "../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox } from "../runtime/sandbox/index.js";
import type { HostCallHandler } from "../host-proxies/types.js";
import { latency, value, type Metrics } from "./metrics.js";
import { interleaved, timedCalls } from "./interleave.js";
import { probePlugin } from "./sandbox.js";

const WASI_PROBE = join(PROJECT_ROOT, "test", "plugins", "wasi-probe");
const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "unused" } });

export async function benchWasi(options: { quick?: boolean } = {}): Promise<Metrics> {
  const scale = options.quick ? 0.2 : 1;
  const sandbox = new Sandbox({ poolSize: 0 });
  try {
    const plugin = await sandbox.load(await buildPlugin(WASI_PROBE, { cacheDir: defaultBuildCacheDir() }));
    const ready: number[] = [];
    for (let i = 0; i < Math.round(40 * scale) + 5; i++) {
      const started = performance.now();
      const instance = await sandbox.acquire(plugin, { label: `ready-${i}`, handler });
      ready.push((performance.now() - started) * 1000);
      instance.destroy();
    }
    const instance = await sandbox.acquire(plugin, { label: "calls", handler });
    const echo = await sandbox.acquire(await probePlugin(sandbox), { label: "echo", handler });
    const input = JSON.stringify({ query: "a typical small tool input", limit: 10 });
    try {
      for (let i = 0; i < 50; i++) await instance.call("clock", "{}");
      for (let i = 0; i < 50; i++) await echo.call("echo", input);
      const rounds = Math.max(3, Math.round(30 * scale));
      const calls = await interleaved(rounds, () => timedCalls(100, () => instance.call("clock", "{}")), () => timedCalls(100, () => echo.call("echo", input)));
      return {
        wasi_instance_ready: latency(ready.slice(5), "ms"),
        wasi_component_call: latency(calls.a),
        wasi_component_call_ratio: value(calls.ratio, "ratio"),
      };
    } finally {
      instance.destroy();
      echo.destroy();
    }
  } finally {
    await sandbox.close();
  }
}
