/**
 * LLM room figures:
 * - toon_token_ratio: o200k tokens of a list_dir result (the files plugin's own shape: path,
 *   50 entries of name/kind/size, total, truncated) encoded as TOON, over the same value as
 *   compact JSON — the encoding the model would otherwise get. Target ≤ 0.7.
 * - llm_call_anthropic / llm_call_openai: one `complete()` of a short streamed text answer
 *   against the fake server on 127.0.0.1: request building, the SDK, HTTP on loopback, SSE
 *   parsing, accumulation. The adapter's cost per Step, with the model's own latency at zero.
 * - llm_tool_call_openai: the same for a streamed answer with two parallel tool calls.
 * `startBenchProvider` and `timeSteps` serve the adapters' own figures above.
 */
import { countTokens } from "../runtime/llm/context/tokens.js";
import { encodeToolResult } from "../runtime/llm/context/tool-result.js";
import { AnthropicProvider, OpenAiProvider, user, type LlmProvider, type LlmRequest } from "../runtime/llm/index.js";
import { startFakeAnthropic, startFakeOpenAi, type FakeAnthropic, type FakeOpenAi, type FakeReply } from "../test/helpers/fake-llm/index.js";
import { timeLoop } from "./peers/index.js";
import { latency, value, type Metric, type Metrics } from "./metrics.js";

const EXTENSIONS = ["ts", "js", "json", "md", "yaml", "wasm", "lock", "txt"];

/** A realistic list_dir result, deterministic: 50 entries of a project folder. */
export function listDirResult(rows = 50): unknown {
  const entries = Array.from({ length: rows }, (_, i) => {
    const directory = i % 7 === 0;
    const name = directory ? `module-${i}` : `source-file-${i}.${EXTENSIONS[i % EXTENSIONS.length]}`;
    return { name, kind: directory ? "directory" : "file", size: directory ? 4096 : (i * 7919) % 250_000 };
  });
  return { path: "/workspace/project/src", entries, total: rows, truncated: false };
}

export function toonTokenRatio(valueToEncode: unknown = listDirResult()): { toon: number; json: number; ratio: number } {
  const encoded = encodeToolResult(valueToEncode);
  if (encoded.format !== "toon") throw new Error(`toon_token_ratio: the sample was encoded as ${encoded.format}, not TOON`);
  const toon = countTokens(encoded.text);
  const json = countTokens(JSON.stringify(valueToEncode));
  return { toon, json, ratio: toon / json };
}

export interface BenchProvider {
  provider: LlmProvider;
  fake: FakeAnthropic | FakeOpenAi;
  close(): Promise<void>;
}

/** A provider wired to a fresh fake server; queue replies with `fake.reply(...)`. */
export async function startBenchProvider(kind: "anthropic" | "openai"): Promise<BenchProvider> {
  const secrets = { apiKeySecret: "bench", secretValue: async () => "bench-key" };
  if (kind === "anthropic") {
    const fake = await startFakeAnthropic();
    return { fake, provider: new AnthropicProvider({ model: "claude-bench", baseUrl: fake.baseUrl, ...secrets }), close: () => fake.close() };
  }
  const fake = await startFakeOpenAi();
  return { fake, provider: new OpenAiProvider({ model: "gpt-bench", baseUrl: fake.baseUrl, ...secrets }), close: () => fake.close() };
}

/** Latency of `step` (µs samples → metric in `unit`), after a warm-up. */
export async function timeSteps(step: () => Promise<unknown>, options: { iterations: number; unit?: "us" | "ms" }): Promise<Metric> {
  const sample = await timeLoop(step, { iterations: options.iterations, warmup: Math.max(3, Math.ceil(options.iterations / 10)) });
  return latency(sample, options.unit ?? "ms");
}

const REQUEST: LlmRequest = {
  system: "You are a benchmark.",
  messages: [user("List the files in src and read the README.")],
  tools: [
    { name: "files.list_dir", description: "List a directory", input_schema: { type: "object", properties: { path: { type: "string" } } } },
    { name: "files.read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } },
  ],
  max_tokens: 512,
};

async function timeCalls(kind: "anthropic" | "openai", options: { reply: FakeReply; iterations: number }): Promise<Metric> {
  const { reply, iterations } = options;
  const bench = await startBenchProvider(kind);
  try {
    return await timeSteps(async () => {
      bench.fake.reply(reply);
      await bench.provider.complete(REQUEST);
    }, { iterations });
  } finally {
    await bench.close();
  }
}

export async function benchLlm(options: { quick?: boolean } = {}): Promise<Metrics> {
  const iterations = options.quick ? 40 : 200;
  const text: FakeReply = { type: "text", text: "The folder holds fifty files; the README explains the build." };
  const tools: FakeReply = {
    type: "tool_calls",
    text: "Looking.",
    calls: [
      { name: "files__list_dir", arguments: { path: "src" } },
      { name: "files__read_file", arguments: { path: "README.md" } },
    ],
  };
  return {
    toon_token_ratio: value(toonTokenRatio().ratio, "ratio"),
    llm_call_anthropic: await timeCalls("anthropic", { reply: text, iterations }),
    llm_call_openai: await timeCalls("openai", { reply: text, iterations }),
    llm_tool_call_openai: await timeCalls("openai", { reply: tools, iterations }),
  };
}
