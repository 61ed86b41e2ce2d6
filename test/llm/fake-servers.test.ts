/**
 * The fakes refuse what the real APIs refuse, so a loop test that passes against them sends
 * requests the real APIs accept. Each refusal has a control request beside it that passes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeAnthropic, startFakeOpenAi } from "../helpers/fake-llm/index.js";

async function post(url: string, request: { body: unknown; headers: Record<string, string> }): Promise<{ status: number; json: unknown }> {
  const { body, headers } = request;
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

test("fake OpenAI: refusals in the documented error shape, with controls", async () => {
  const fake = await startFakeOpenAi();
  try {
    const url = `${fake.baseUrl}/chat/completions`;
    const auth = { authorization: "Bearer k" };
    const call = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "a__b", arguments: "{}" } }] };
    const rows: Array<[why: string, body: unknown, headers: Record<string, string>, status: number]> = [
      ["control", { model: "m", messages: [{ role: "user", content: "hi" }] }, auth, 200],
      ["no key", { model: "m", messages: [{ role: "user", content: "hi" }] }, {}, 401],
      ["no model", { messages: [{ role: "user", content: "hi" }] }, auth, 400],
      ["a dotted tool name", { model: "m", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "a.b" } }] }, auth, 400],
      ["a tool message without its call", { model: "m", messages: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "c1", content: "x" }] }, auth, 400],
      ["a call left unanswered", { model: "m", messages: [{ role: "user", content: "hi" }, call, { role: "user", content: "?" }] }, auth, 400],
      ["control: a call answered", { model: "m", messages: [{ role: "user", content: "hi" }, call, { role: "tool", tool_call_id: "c1", content: "x" }] }, auth, 200],
    ];
    for (const [why, body, headers, status] of rows) {
      if (status === 200) fake.reply({ type: "text", text: "ok" });
      const r = await post(url, { body, headers });
      assert.equal(r.status, status, why);
      if (status !== 200) assert.equal(typeof (r.json as { error: { message: string } }).error.message, "string", why);
    }
  } finally {
    await fake.close();
  }
});

test("fake Anthropic: refusals in the documented error shape, with controls", async () => {
  const fake = await startFakeAnthropic();
  try {
    const url = `${fake.baseUrl}/v1/messages`;
    const ok = { "x-api-key": "k", "anthropic-version": "2026-10-21" };
    const use = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "a__b", input: {} }] };
    const base = { model: "m", max_tokens: 10 };
    const rows: Array<[why: string, body: unknown, headers: Record<string, string>, status: number]> = [
      ["control", { ...base, messages: [{ role: "user", content: "hi" }] }, ok, 200],
      ["control: a Bearer key", { ...base, messages: [{ role: "user", content: "hi" }] }, { authorization: "Bearer k", "anthropic-version": "2026-10-21" }, 200],
      ["no key", { ...base, messages: [{ role: "user", content: "hi" }] }, { "anthropic-version": "2026-10-21" }, 401],
      ["no version", { ...base, messages: [{ role: "user", content: "hi" }] }, { "x-api-key": "k" }, 400],
      ["temperature under 2026-10-21", { ...base, temperature: 0, messages: [{ role: "user", content: "hi" }] }, ok, 400],
      ["control: temperature under 2023-06-01", { ...base, temperature: 0, messages: [{ role: "user", content: "hi" }] }, { ...ok, "anthropic-version": "2023-06-01" }, 200],
      ["empty text", { ...base, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }, ok, 400],
      ["text before tool_result", { ...base, messages: [{ role: "user", content: "go" }, use, { role: "user", content: [{ type: "text", text: "x" }, { type: "tool_result", tool_use_id: "t1", content: "r" }] }] }, ok, 400],
      ["a tool_result for an unknown id", { ...base, messages: [{ role: "user", content: "go" }, use, { role: "user", content: [{ type: "tool_result", tool_use_id: "t9", content: "r" }] }] }, ok, 400],
      ["control: tool_result first", { ...base, messages: [{ role: "user", content: "go" }, use, { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "r" }, { type: "text", text: "x" }] }] }, ok, 200],
    ];
    for (const [why, body, headers, status] of rows) {
      if (status === 200) fake.reply({ type: "text", text: "ok" });
      const r = await post(url, { body, headers });
      assert.equal(r.status, status, why);
      if (status !== 200) assert.equal((r.json as { type: string }).type, "error", why);
    }
  } finally {
    await fake.close();
  }
});
