/**
 * The run loop's own cost beyond the provider's latency, against the fake OpenAI server on
 * 127.0.0.1. Each run is model-driven: every Step but the last asks for one tool call
 * (bench-echo.echo), the last answers. The time inside the provider's complete() — request,
 * HTTP, SSE parsing — is the provider's; everything between one complete() returning and the
 * next one starting is the loop's.
 *
 * - loop_step_overhead: one Step's share, measured per Step: from the model's answer to the next
 *   prompt leaving — the model-call record, the ToolCall (policy, audit intent and outcome in one
 *   commit, the sandbox round trip, the guest's own work), the tool result's encoding, events and
 *   the next request (history, tools, budget). Every Step after the run's first ToolCall counts;
 *   the first one also binds the run's instance, a cost the run pays once. Target p50 ≤ 1 ms.
 * - loop_run_overhead: what a run costs once, however many Steps it takes: its record,
 *   conversation and loop state, its prompt zones, binding the fresh instance it takes from the
 *   pool (and the pool's refill, ~3 ms of instantiation in a worker), its end (result,
 *   conversation turn, events, report): the time before its first prompt and after its last
 *   answer, plus what its first Step took beyond its median Step.
 *
 * Dividing a whole run's overhead by its Step count instead would fold the run's once-only costs
 * into every Step, so the figure would depend on how long the bench's runs are (1.57 ms at 10
 * Steps, 1.35 ms at 20 on the 2-core dev box).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProvider, type LlmProvider } from "../runtime/llm/index.js";
import { Runtime } from "../runtime/index.js";
import { PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { startFakeOpenAi } from "../test/helpers/fake-llm/index.js";
import { percentile } from "./peers/index.js";
import { latency, type Metrics } from "./metrics.js";

/** Steps per run; STEPS − 1 tool rounds stay under the default max_tool_rounds (20). */
const STEPS = 15;
const WARMUP_RUNS = 3;

export async function benchLoop(options: { quick?: boolean } = {}): Promise<Metrics> {
  const runs = options.quick ? 8 : 40;
  const fake = await startFakeOpenAi();
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-bench-loop-"));
  /** The current run's model calls: when each started and ended (performance.now()). */
  let calls: Array<{ start: number; end: number }> = [];
  const timed = (inner: LlmProvider): LlmProvider =>
    Object.assign(Object.create(inner) as LlmProvider, {
      complete: async (...args: Parameters<LlmProvider["complete"]>) => {
        const start = performance.now();
        try {
          return await inner.complete(...args);
        } finally {
          calls.push({ start, end: performance.now() });
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
    const perRun: number[] = [];
    for (let i = 0; i < runs + WARMUP_RUNS; i++) {
      for (let s = 0; s < STEPS - 1; s++) fake.reply({ type: "tool_calls", calls: [{ name: "bench-echo__echo", arguments: { step: s } }] });
      fake.reply({ type: "text", text: "done" });
      calls = [];
      const started = performance.now();
      const { run, settled } = await runtime.submitRun({ agent: "bench", task: "echo a few times" });
      await settled;
      const total = performance.now() - started;
      const record = await runtime.records.get(run.id);
      if (record?.endReason !== "completed") throw new Error(`bench run ended ${record?.endReason}: ${JSON.stringify(record?.result)}`);
      if (calls.length !== STEPS) throw new Error(`bench run made ${calls.length} model calls, not ${STEPS}`);
      if (i < WARMUP_RUNS) continue;
      // Between model call k's end and call k + 1's start: Step k's share.
      const gaps = calls.slice(0, -1).map((call, k) => calls[k + 1]!.start - call.end);
      const steps = gaps.slice(1);
      perStep.push(...steps.map((ms) => ms * 1000));
      // Before the first prompt, after the last answer, and what the first Step took beyond a typical one.
      const before = calls[0]!.start - started;
      const after = started + total - calls[calls.length - 1]!.end;
      const typical = percentile([...steps].sort((a, b) => a - b), 50);
      perRun.push((before + (gaps[0]! - typical) + after) * 1000);
    }
    return { loop_step_overhead: latency(perStep, "ms"), loop_run_overhead: latency(perRun, "ms") };
  } finally {
    await runtime.close();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
