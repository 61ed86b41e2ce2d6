/**
 * The recorded streams (test/fixtures/llm-streams, see its PROVENANCE.md) replayed byte for
 * byte by the fake servers through each adapter: the unified response must be what the
 * recording says.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AnthropicProvider, OpenAiProvider, text, toolResult, toolUse, user, type LlmResponse, type Message } from "../../runtime/llm/index.js";
import { toAnthropicParams } from "../../runtime/llm/anthropic/wire.js";
import { ToolNameMap } from "../../runtime/llm/tool-names.js";
import { LLM_STREAMS, startFakeAnthropic, startFakeOpenAi, type FakeAnthropic, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { request } from "./provider.conformance.js";

const secrets = { apiKeySecret: "k", secretValue: async () => "test-key" };

type Expect = Omit<LlmResponse, "attempts" | "provider_stop_reason"> & { text?: string };

const OPENAI: Array<[file: string, expected: Expect]> = [
  [
    "openai-chat-text.sse",
    {
      content: [text("I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.")],
      stop_reason: "end_turn",
      usage: { input_tokens: 14, output_tokens: 30 },
      model: "gpt-4o-2024-08-06",
    },
  ],
  [
    "openai-chat-single-tool-call.sse",
    {
      content: [toolUse("call_c91SqDXlYFuETYv8mUHzz6pp", "GetWeatherArgs", { city: "Edinburgh", country: "UK", units: "c" })],
      stop_reason: "tool_use",
      usage: { input_tokens: 76, output_tokens: 24 },
      model: "gpt-4o-2024-08-06",
    },
  ],
  [
    "openai-chat-parallel-tool-calls.sse",
    {
      content: [
        toolUse("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", { city: "Edinburgh", country: "GB", units: "c" }),
        toolUse("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", { ticker: "AAPL", exchange: "NASDAQ" }),
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 149, output_tokens: 60 },
      model: "gpt-4o-2024-08-06",
    },
  ],
  ["openai-chat-finish-length.sse", { content: [text('{"')], stop_reason: "max_tokens", usage: { input_tokens: 79, output_tokens: 1 }, model: "gpt-4o-2024-08-06" }],
];

const ANTHROPIC: Array<[file: string, expected: Expect]> = [
  ["anthropic-messages-text.sse", { content: [text("Hello there!")], stop_reason: "end_turn", usage: { input_tokens: 11, output_tokens: 6 }, model: "claude-3-opus-20240229" }],
  [
    "anthropic-messages-tool-use.sse",
    {
      content: [text("I'll check the current weather in Paris for you."), toolUse("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", { location: "Paris" })],
      stop_reason: "tool_use",
      usage: { input_tokens: 377, output_tokens: 65, cache_read: 0, cache_write: 0 },
      model: "claude-sonnet-4-20250514",
    },
  ],
];

describe("recorded OpenAI streams", () => {
  let fake: FakeOpenAi;
  before(async () => (fake = await startFakeOpenAi()));
  after(() => fake.close());
  for (const [file, expected] of OPENAI) {
    test(file, async () => {
      fake.reply({ type: "fixture", file });
      const deltas: string[] = [];
      const r = await new OpenAiProvider({ model: "gpt-4o", baseUrl: fake.baseUrl, ...secrets }).complete(request(), { onText: (d) => deltas.push(d) });
      const { attempts: _a, provider_stop_reason: _p, ...got } = r;
      assert.deepEqual(got, expected);
      assert.equal(deltas.join(""), r.content.filter((b) => b.type === "text").map((b) => (b.type === "text" ? b.text : "")).join(""));
    });
  }
});

describe("recorded Anthropic streams", () => {
  let fake: FakeAnthropic;
  before(async () => (fake = await startFakeAnthropic()));
  after(() => fake.close());
  for (const [file, expected] of ANTHROPIC) {
    test(file, async () => {
      fake.reply({ type: "fixture", file });
      const r = await new AnthropicProvider({ model: "claude-test", baseUrl: fake.baseUrl, ...secrets }).complete(request());
      const { attempts: _a, provider_stop_reason: _p, ...got } = r;
      assert.deepEqual(got, expected);
    });
  }

  test("anthropic-messages-tool-use-max-tokens.sse: the cut-off tool input becomes input_error", async () => {
    fake.reply({ type: "fixture", file: "anthropic-messages-tool-use-max-tokens.sse" });
    const r = await new AnthropicProvider({ model: "claude-test", baseUrl: fake.baseUrl, ...secrets }).complete(request());
    assert.equal(r.stop_reason, "max_tokens");
    assert.deepEqual(r.usage, { input_tokens: 450, output_tokens: 124, cache_read: 0, cache_write: 0 });
    const [intro, call] = r.content;
    assert.deepEqual(intro, text("I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now."));
    assert.equal(call?.type, "tool_use");
    if (call?.type !== "tool_use") return;
    assert.equal(call.id, "toolu_01EKqbqmZrGRXy18eN7m9kvY");
    assert.equal(call.name, "make_file");
    assert.deepEqual(call.input, {});
    assert.match(call.input_error ?? "", /cut off by the max_tokens limit/);
    assert.ok(call.raw_input?.startsWith('{"filename": "taxes.txt", "lines_of_text": ['));
  });
});

interface NockPair {
  body: { messages: Array<{ role: string; content: unknown }>; tools: unknown[] };
  response: Record<string, unknown>;
}

describe("recorded Anthropic tool loop (nock recording, non-streaming)", () => {
  const pairs = JSON.parse(readFileSync(join(LLM_STREAMS, "anthropic-tool-runner-nock-recording.json"), "utf8")) as NockPair[];
  let fake: FakeAnthropic;
  before(async () => (fake = await startFakeAnthropic()));
  after(() => fake.close());

  test("two parallel tool_use blocks, and the follow-up request the adapter builds matches the recorded one", async () => {
    const [first, second] = [pairs[2], pairs[3]] as [NockPair, NockPair];
    fake.reply({ type: "json", body: first.response });
    const provider = new AnthropicProvider({ model: "claude-sonnet-4-0", baseUrl: fake.baseUrl, stream: false, ...secrets });
    const prompt = String(first.body.messages[0]?.content);
    const tools = [{ name: "test_tool", description: "A test tool", input_schema: { type: "object", properties: { count: { type: "number" } } } }];
    const r = await provider.complete(request({ messages: [user(prompt)], tools }));
    assert.equal(r.stop_reason, "tool_use");
    assert.deepEqual(r.content, [
      text("I'll use the test_tool twice as requested - first with count 1, then with count 2."),
      toolUse("toolu_01L8GVQapA1HmggQcrwboukH", "test_tool", { count: 1 }),
      toolUse("toolu_01J5Fvzxu7DP1Uh59c1kr5JD", "test_tool", { count: 2 }),
    ]);
    assert.deepEqual(r.usage, { input_tokens: 418, output_tokens: 113, cache_read: 0, cache_write: 0 });

    const history: Message[] = [
      user(prompt),
      { role: "assistant", content: r.content },
      user(toolResult("toolu_01L8GVQapA1HmggQcrwboukH", "Called with 1"), toolResult("toolu_01J5Fvzxu7DP1Uh59c1kr5JD", "Called with 2")),
    ];
    const wire = toAnthropicParams(request({ messages: history, tools }), { model: "claude-sonnet-4-0", names: new ToolNameMap(["test_tool"]) });
    // The recording sends the first user turn as a plain string; the adapter always sends blocks.
    const recorded = second.body.messages.map((m) => (typeof m.content === "string" ? { role: m.role, content: [{ type: "text", text: m.content }] } : m));
    assert.deepEqual(wire.messages, recorded);

    fake.reply({ type: "json", body: second.response });
    const final = await provider.complete(request({ messages: history, tools }));
    assert.equal(final.stop_reason, "end_turn");
    assert.match(final.content[0]?.type === "text" ? final.content[0].text : "", /Called with 1/);
  });
});
