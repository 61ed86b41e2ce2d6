/**
 * The cost of tracing a ToolCall: the same calls as `tool_call_policy`, with the SDK on and
 * its spans batched as for OTLP (the exporter drops them: the network is not the runtime's
 * cost). `tool_call_traced_ratio` is traced ÷ untraced p50; the goal is ≤ 1.1.
 */
import { ExportResultCode } from "@opentelemetry/core";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Runtime } from "../runtime/index.js";
import { startTracing, stopTracing } from "../runtime/telemetry/tracing.js";
import { latency, round, value, type Metrics } from "./metrics.js";

const DROP: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => undefined,
};

export async function benchTraced(runtime: Runtime, options: { n: number; input: unknown; untracedP50: number }): Promise<Metrics> {
  await startTracing({ exporter: DROP, batch: true });
  try {
    const run = await runtime.startRun({ agent: "bench" });
    const samples: number[] = [];
    for (let i = 0; i < options.n; i++) {
      const started = performance.now();
      await run.callTool("bench-echo.echo", options.input);
      samples.push((performance.now() - started) * 1000);
    }
    await run.end();
    const traced = latency(samples);
    const p50 = "p50" in traced ? traced.p50 : 0;
    return { tool_call_traced: traced, tool_call_traced_ratio: value(round(p50 / options.untracedP50), "ratio") };
  } finally {
    await stopTracing();
  }
}
