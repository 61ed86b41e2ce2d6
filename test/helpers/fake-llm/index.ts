/**
 * Fake LLM providers on 127.0.0.1 for tests: scripted replies, recorded requests, the
 * documented wire formats. Reusable by run-loop tests:
 *
 *   const fake = await startFakeAnthropic();
 *   fake.reply({ type: "tool_calls", calls: [{ name: "files__read_file", arguments: { path: "a.txt" } }] }, { type: "text", text: "done" });
 *   const provider = new AnthropicProvider({ model: "claude-test", baseUrl: fake.baseUrl, apiKeySecret: "k", secretValue: async () => "test-key" });
 *   …
 *   fake.requests[1].body  // what the model saw on the second Step
 *   await fake.close();
 */
export { FakeAnthropic, startFakeAnthropic } from "./anthropic.js";
export type { FakeAnthropicOptions } from "./anthropic.js";
export { FakeOpenAi, startFakeOpenAi } from "./openai.js";
export type { FakeOpenAiOptions } from "./openai.js";
export { FakeProxy, startFakeProxy } from "./proxy.js";
export type { ProxyConnect } from "./proxy.js";
export type { FakeReply, FakeToolCall } from "./replies.js";
export type { RecordedRequest } from "./server.js";
export { LLM_STREAMS } from "./fixtures.js";
