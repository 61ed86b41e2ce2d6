import assert from "node:assert/strict";
import { test } from "node:test";
import { AnthropicProvider, createProvider, LlmError, OpenAiProvider, text, user } from "../../runtime/llm/index.js";
import type { AgentModel } from "../../runtime/agents/index.js";
import { startFakeAnthropic, startFakeOpenAi } from "../helpers/fake-llm/index.js";

const secretValue = async () => "k-123";

test("the manifest's model block chooses the adapter", () => {
  const a = createProvider({ provider: "anthropic", id: "claude-sonnet-4-5", api_key_secret: "anthropic-api-key" }, { secretValue });
  assert.ok(a instanceof AnthropicProvider);
  assert.deepEqual([a.provider, a.model], ["anthropic", "claude-sonnet-4-5"]);
  const o = createProvider({ provider: "openai", id: "gpt-4.1", api_key_secret: "openai-api-key" }, { secretValue });
  assert.ok(o instanceof OpenAiProvider);
  assert.equal(o.provider, "openai");
  const c = createProvider({ provider: "openai-compatible", id: "llama3.1", base_url: "http://localhost:11434/v1" });
  assert.equal(c.provider, "openai-compatible");
});

test("a hosted provider without api_key_secret is a config error", () => {
  assert.throws(() => createProvider({ provider: "anthropic", id: "claude-sonnet-4-5" }), (e: unknown) => e instanceof LlmError && e.code === "llm_config" && /api_key_secret/.test(e.message));
});

test("a bad proxy URL is a config error that does not echo its password", () => {
  assert.throws(
    () => createProvider({ provider: "openai", id: "gpt-4.1", api_key_secret: "k" }, { proxyUrl: "ftp://bob:hunter2@proxy" }),
    (e: unknown) => e instanceof LlmError && e.code === "llm_config" && !e.message.includes("hunter2"),
  );
});

test("openai-compatible without a key (Ollama): no Authorization header, max_tokens field", async () => {
  const fake = await startFakeOpenAi({ keyless: true });
  try {
    fake.reply({ type: "text", text: "local" });
    const provider = createProvider({ provider: "openai-compatible", id: "llama3.1", base_url: fake.baseUrl });
    const r = await provider.complete({ system: "", messages: [user("hi")], tools: [], max_tokens: 50 });
    assert.deepEqual(r.content, [text("local")]);
    const req = fake.requests[0];
    assert.equal(req?.headers.authorization, undefined);
    const body = req?.body as Record<string, unknown>;
    assert.equal(body.max_tokens, 50);
    assert.equal("max_completion_tokens" in body, false);
    assert.deepEqual(body.messages, [{ role: "user", content: "hi" }], "no empty system message");
  } finally {
    await fake.close();
  }
});

test("extra headers are sent (an API gateway's routing header)", async () => {
  const fake = await startFakeOpenAi();
  try {
    fake.reply({ type: "text", text: "ok" });
    await createProvider({ provider: "openai", id: "gpt-4.1", base_url: fake.baseUrl, api_key_secret: "k" }, { secretValue, headers: { "x-gateway-route": "team-a" } }).complete({
      system: "",
      messages: [user("hi")],
      tools: [],
      max_tokens: 5,
    });
    assert.equal(fake.requests[0]?.headers["x-gateway-route"], "team-a");
    assert.equal(fake.requests[0]?.headers.authorization, "Bearer k-123");
  } finally {
    await fake.close();
  }
});

test("the manifest's stream: false reaches the adapter", async () => {
  const fake = await startFakeOpenAi();
  try {
    fake.reply({ type: "text", text: "whole" });
    await createProvider({ provider: "openai", id: "gpt-4.1", base_url: fake.baseUrl, api_key_secret: "k", stream: false }, { secretValue }).complete({ system: "", messages: [user("hi")], tools: [], max_tokens: 5 });
    assert.equal((fake.requests[0]?.body as { stream?: boolean }).stream, undefined);
  } finally {
    await fake.close();
  }
});

test("an agent manifest's model block is accepted as it is", () => {
  const model: AgentModel = { provider: "anthropic", id: "claude-sonnet-4-5", api_key_secret: "anthropic-api-key", max_tokens: 4096, temperature: 0, context_tokens: 200_000 };
  assert.equal(createProvider(model, { secretValue }).model, "claude-sonnet-4-5");
});

test("anthropic through a keyless gateway: no key header is sent", async () => {
  const fake = await startFakeAnthropic({ keyless: true });
  try {
    fake.reply({ type: "text", text: "gateway" });
    const provider = createProvider({ provider: "anthropic", id: "claude-sonnet-4-5", base_url: fake.baseUrl });
    const r = await provider.complete({ system: "", messages: [user("hi")], tools: [], max_tokens: 5 });
    assert.deepEqual(r.content, [text("gateway")]);
    assert.equal(fake.requests[0]?.headers.authorization, undefined);
    assert.equal(fake.requests[0]?.headers["x-api-key"], undefined);
  } finally {
    await fake.close();
  }
});
