/**
 * The two providers under test, each against its fake server, and a provider-neutral reading
 * of what the fake received, so the conformance suite asserts the same things of both.
 */
import { AnthropicProvider, OpenAiProvider, type LlmProvider, type ProviderOptions } from "../../runtime/llm/index.js";
import { startFakeAnthropic, startFakeOpenAi, type FakeAnthropic, type FakeOpenAi } from "../helpers/fake-llm/index.js";

export type Fake = FakeAnthropic | FakeOpenAi;

/** What the model was shown, read back from a recorded request body. */
export interface Seen {
  system: string;
  tools: string[];
  toolCalls: Array<{ id: string; name: string; input: unknown }>;
  toolResults: Array<{ id: string; content: string; isError: boolean }>;
  userTexts: string[];
  stream: boolean;
}

export interface ProviderUnderTest {
  name: string;
  start(): Promise<Fake>;
  make(fake: Fake, options?: Partial<ProviderOptions>): LlmProvider;
  seen(body: unknown): Seen;
  /** The API key as the request carried it. */
  keyOf(headers: Record<string, string | string[] | undefined>): string | undefined;
  /** Whether the non-streaming API can return malformed tool arguments (OpenAI: a string; Anthropic: never). */
  malformedWithoutStream: boolean;
}

export const TEST_KEY = "test-key-0123456789";

const secrets = { apiKeySecret: "llm_key", secretValue: async () => TEST_KEY };
const fastRetry = { retry: { baseDelayMs: 1, maxDelayMs: 5 } };

type AnyBody = Record<string, unknown> & { messages?: Array<Record<string, unknown>> };

export const anthropicUnderTest: ProviderUnderTest = {
  name: "anthropic",
  start: () => startFakeAnthropic(),
  make: (fake, options = {}) => new AnthropicProvider({ model: "claude-test", baseUrl: fake.baseUrl, ...secrets, ...fastRetry, ...options }),
  seen(body) {
    const b = body as AnyBody;
    const seen: Seen = { system: String(b.system ?? ""), tools: ((b.tools ?? []) as Array<{ name: string }>).map((t) => t.name), toolCalls: [], toolResults: [], userTexts: [], stream: b.stream === true };
    for (const m of b.messages ?? []) {
      const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Array<Record<string, unknown>>);
      for (const x of blocks) {
        if (x.type === "tool_use") seen.toolCalls.push({ id: String(x.id), name: String(x.name), input: x.input });
        if (x.type === "tool_result") seen.toolResults.push({ id: String(x.tool_use_id), content: String(x.content), isError: x.is_error === true });
        if (x.type === "text" && m.role === "user") seen.userTexts.push(String(x.text));
      }
    }
    return seen;
  },
  keyOf: (headers) => (typeof headers["x-api-key"] === "string" ? headers["x-api-key"] : bearer(headers.authorization)),
  malformedWithoutStream: false,
};

export const openAiUnderTest: ProviderUnderTest = {
  name: "openai",
  start: () => startFakeOpenAi(),
  make: (fake, options = {}) => new OpenAiProvider({ model: "gpt-test", baseUrl: (fake as FakeOpenAi).baseUrl, ...secrets, ...fastRetry, ...options }),
  seen(body) {
    const b = body as AnyBody;
    const seen: Seen = { system: "", tools: ((b.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name), toolCalls: [], toolResults: [], userTexts: [], stream: b.stream === true };
    for (const m of b.messages ?? []) {
      if (m.role === "system") seen.system = String(m.content);
      if (m.role === "user") seen.userTexts.push(String(m.content));
      if (m.role === "tool") {
        const content = String(m.content);
        seen.toolResults.push({ id: String(m.tool_call_id), content: content.replace(/^Error: /, ""), isError: content.startsWith("Error: ") });
      }
      for (const c of (m.tool_calls ?? []) as Array<{ id: string; function: { name: string; arguments: string } }>) {
        seen.toolCalls.push({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) as unknown });
      }
    }
    return seen;
  },
  keyOf: (headers) => bearer(headers.authorization),
  malformedWithoutStream: true,
};

function bearer(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" && value.startsWith("Bearer ") ? value.slice(7) : undefined;
}
