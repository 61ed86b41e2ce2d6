import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";
import { defineLoopAgent, LLM_SECRET, sent } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Listening;
let fake: FakeOpenAi;
const token = { client: "", other: "" };

before(async () => {
  ({ runtime, dispose } = await testRuntime());
  await runtime.setSecret(LLM_SECRET, "test-key");
  fake = await startFakeOpenAi();
  await defineLoopAgent(runtime, "talker", { provider: "openai", baseUrl: fake.baseUrl });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token.client = (await tokens.create("client")).token;
  token.other = (await tokens.create("client")).token;
  server = await listen(createApp({ runtime, tokens, version: "test" }));
});
after(async () => {
  await server.close();
  await fake.close();
  await dispose();
});

function api(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  return jsonCall(server.base, method, path, { ...options, token: options.token ?? token.client });
}

test("POST /v1/runs with task text alone: the model answers, the run shows its result and conversation", async () => {
  fake.reply({ type: "text", text: "Hello, Ada." });
  const one = await api("POST", "/v1/runs?wait=true", { body: { agent: "talker", task: "Hi, I am Ada." } });
  assert.equal(one.status, 201, JSON.stringify(one.body));
  assert.equal(one.body.run.status, "ended");
  assert.equal(one.body.run.end_reason, "completed");
  assert.equal(one.body.run.result, "Hello, Ada.");
  const conversationId = one.body.run.conversation_id as string;
  assert.match(conversationId, /^conv_/);

  fake.reply({ type: "text", text: "You are Ada." });
  const two = await api("POST", "/v1/runs?wait=true", { body: { agent: "talker", task: "Who am I?", conversation_id: conversationId } });
  assert.equal(two.status, 201, JSON.stringify(two.body));
  assert.equal(two.body.run.conversation_id, conversationId);
  assert.equal(two.body.run.result, "You are Ada.");
  assert.match(sent(fake, fake.requests.length - 1), /Hi, I am Ada\..*Hello, Ada\..*Who am I\?/);

  const conversation = await api("GET", `/v1/conversations/${conversationId}`);
  assert.equal(conversation.status, 200);
  assert.equal(conversation.body.conversation.agent, "talker");
  assert.deepEqual(
    conversation.body.conversation.messages.map((m: { role: string; run_id: string }) => [m.role, m.run_id]),
    [["user", one.body.run.id], ["assistant", one.body.run.id], ["user", two.body.run.id], ["assistant", two.body.run.id]],
  );

  // Another client neither reads nor continues it (it is not shown to exist).
  assert.equal((await api("GET", `/v1/conversations/${conversationId}`, { token: token.other })).status, 404);
  const foreign = await api("POST", "/v1/runs", { token: token.other, body: { agent: "talker", task: "Who am I?", conversation_id: conversationId } });
  assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
  assert.equal((await api("GET", "/v1/conversations/conv_nope")).status, 404);
});
