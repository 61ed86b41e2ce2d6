/**
 * loop_step_overhead: what the run loop adds to a Step beyond the provider's own latency. A
 * model-driven run of STEPS Steps (each but the last asks for one tool call, bench-echo.echo;
 * the last answers) against the fake OpenAI server on 127.0.0.1; the time inside the provider's
 * complete() (request, HTTP, SSE parsing) is subtracted. What remains per Step: building the
 * request (history, tools, budget), the ToolCall (policy, audit intent and outcome, sandbox),
 * the tool result's encoding, events and state. Target p50 ≤ 1 ms.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProvider, type LlmProvider } from "../runtime/llm/index.js";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { startFakeOpenAi } from "../test/helpers/fake-llm/index.js";
import { latency, type Metrics } from "./metrics.js";

const STEPS = 10;

export async function benchLoop(options: { quick?: boolean } = {}): Promise<Metrics> {
  const runs = options.quick ? 10 : 40;
  const fake = await startFakeOpenAi();
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-loop-"));
  let providerMs = 0;
  const timed = (inner: LlmProvider): LlmProvider =>
    Object.assign(Object.create(inner) as LlmProvider, {
      complete: async (...args: Parameters<LlmProvider["complete"]>) => {
        const started = performance.now();
        try {
          return await inner.complete(...args);
        } finally {
          providerMs += performance.now() - started;
        }
      },
    });
  const runtime = await Runtime.create({
    dataDir,
    agentsDir: dataDir,
    pluginDirs: [join(PROJECT_ROOT, "bench", "plugins", "echo")],
    modelProvider: (agent) => timed(createProvider(agent.model, { secretValue: async () => "bench-key" })),
  });
  try {
    await runtime.defineAgent({
      name: "bench",
      description: "bench agent",
      model: { provider: "openai", id: "gpt-bench", base_url: fake.baseUrl, api_key_secret: "bench" },
      system_prompt: "You are a benchmark.",
      plugins: [{ name: "bench-echo", version: "*" }],
      grants: {},
    });
    const perStep: number[] = [];
    for (let i = 0; i < runs + 3; i++) {
      for (let s = 0; s < STEPS - 1; s++) fake.reply({ type: "tool_calls", calls: [{ name: "bench-echo__echo", arguments: { step: s } }] });
      fake.reply({ type: "text", text: "done" });
      providerMs = 0;
      const started = performance.now();
      const { run, settled } = await runtime.submitRun({ agent: "bench", task: "echo ten times" });
      await settled;
      const total = performance.now() - started;
      const record = await runtime.records.get(run.id);
      if (record?.endReason !== "completed") throw new Error(`bench run ended ${record?.endReason}: ${JSON.stringify(record?.result)}`);
      if (i >= 3) perStep.push(((total - providerMs) / STEPS) * 1000);
    }
    return { loop_step_overhead: latency(perStep, "ms") };
  } finally {
    await runtime.close();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
