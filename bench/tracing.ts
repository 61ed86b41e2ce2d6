/**
 * The cost of tracing a ToolCall: the same calls as `tool_call_policy`, with the SDK on and
 * its spans batched as for OTLP (the exporter drops them: the network is not the runtime's
 * cost). `tool_call_traced_ratio` is traced ÷ untraced, measured in one loop: tracing is turned
 * on and off between blocks of calls (interleave.ts); the goal is ≤ 1.1.
 */
import { ExportResultCode } from "@opentelemetry/core";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Runtime } from "../runtime/index.js";
import { startTracing, stopTracing } from "../runtime/telemetry/tracing.js";
import { latency, value, type Metrics } from "./metrics.js";
import { interleaved, timedCalls } from "./interleave.js";

const DROP: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => undefined,
};

export async function benchTraced(runtime: Runtime, options: { rounds: number; block: number; input: unknown }): Promise<Metrics> {
  // A run per block: a run's root span is opened when it starts, so each block's run is started
  // with tracing as that block wants it.
  const block = async (): Promise<number[]> => {
    const run = await runtime.startRun({ agent: "bench" });
    try {
      for (let i = 0; i < 10; i++) await run.callTool("bench-echo.echo", options.input);
      return await timedCalls(options.block, () => run.callTool("bench-echo.echo", options.input));
    } finally {
      await run.end();
    }
  };
  const traced = async (): Promise<number[]> => {
    await startTracing({ exporter: DROP, batch: true });
    try {
      return await block();
    } finally {
      await stopTracing();
    }
  };
  const figures = await interleaved(options.rounds, traced, block);
  return { tool_call_traced: latency(figures.a), tool_call_traced_ratio: value(figures.ratio, "ratio") };
}
