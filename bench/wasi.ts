/**
 * WASI components (clawhive's own WASI 0.2, per instance):
 * - wasi_component_call: round trip of a tool call of a component built with WASI on that reads
 *   the clocks and random through WASI (no host call), beside `tool_call_roundtrip`;
 * - wasi_component_call_ratio: its p50 over the p50 of `tool_call_roundtrip` (the plain echo
 *   component's round trip), so the cost WASI adds is one number;
 * - wasi_instance_ready: instantiate and bind the WASI component (its glue and WASI imports).
 */
import { join } from "node:path";
import { buildPlugin } from "../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox } from "../runtime/sandbox/index.js";
import type { HostCallHandler } from "../host-proxies/types.js";
import { latency, round, value, type Metric, type Metrics } from "./metrics.js";

const WASI_PROBE = join(PROJECT_ROOT, "test", "plugins", "wasi-probe");
const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "unused" } });

export async function benchWasi(options: { quick?: boolean; toolCallRoundTrip?: Metric | undefined } = {}): Promise<Metrics> {
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
    for (let i = 0; i < 50; i++) await instance.call("clock", "{}");
    const calls: number[] = [];
    for (let i = 0; i < Math.round(3000 * scale); i++) {
      const started = performance.now();
      await instance.call("clock", "{}");
      calls.push((performance.now() - started) * 1000);
    }
    instance.destroy();
    const metrics: Metrics = { wasi_instance_ready: latency(ready.slice(5), "ms"), wasi_component_call: latency(calls) };
    const base = options.toolCallRoundTrip;
    const call = metrics.wasi_component_call!;
    if (base && "p50" in base && "p50" in call && base.p50 > 0) metrics.wasi_component_call_ratio = value(round(call.p50 / base.p50), "ratio");
    return metrics;
  } finally {
    await sandbox.close();
  }
}
