/**
 * The todo list a run's model keeps: written and read through `todo_write` / `todo_read` in the
 * run loop (against the fake model server), stored, shown as `todo` run events and served by
 * `GET /v1/runs/:id/todo`; input the tools cannot use is refused with the field named, each
 * refusal beside a write that passes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { parseTodoWrite, TodoInputError } from "../../runtime/todo/index.js";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-llm/index.js";
import { testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";
import { LLM_SECRET, sent } from "../runs/_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Listening;
let fake: FakeOpenAi;
let token = "";

async function define(name: string, todo: "run" | "conversation" | undefined): Promise<void> {
  await runtime.defineAgent({
    name,
    description: `todo test agent ${name}`,
    model: { provider: "openai", id: "test-model", base_url: fake.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 1024 },
    system_prompt: "You plan with a todo list.",
    plugins: [],
    grants: {},
    ...(todo === undefined ? {} : { todo }),
  } as never);
}

before(async () => {
  ({ runtime, dispose } = await testRuntime());
  await runtime.setSecret(LLM_SECRET, "test-key");
  fake = await startFakeOpenAi();
  await define("planner", "run");
  await define("keeper", "conversation");
  await define("plain", undefined);
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token = (await tokens.create("client")).token;
  server = await listen(createApp({ runtime, tokens, version: "test" }));
});
after(async () => {
  await server.close();
  await fake.close();
  await dispose();
});

const api = (method: string, path: string, body?: unknown) => jsonCall(server.base, method, path, { token, ...(body === undefined ? {} : { body }) });
const LIST = [
  { id: "1", text: "read the failing test", status: "done" },
  { id: "2", text: "fix the parser", status: "in_progress" },
  { id: "3", text: "document the change", status: "pending" },
];

describe("the model keeps a list", () => {
  test("todo_write stores the list, emits a todo event, and GET /v1/runs/:id/todo serves it", async () => {
    fake.reply({ type: "tool_calls", calls: [{ name: "todo_write", arguments: { items: LIST } }] }, { type: "tool_calls", calls: [{ name: "todo_read", arguments: {} }] }, { type: "text", text: "On it." });
    const first = fake.requests.length;
    const started = await api("POST", "/v1/runs?wait=true", { agent: "planner", task: "fix the build" });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(started.body.run.result, "On it.");
    const id = started.body.run.id as string;
    // The model was offered both tools, and read back what it wrote.
    assert.match(sent(fake, first), /"todo_write".*"todo_read"/);
    assert.match(sent(fake, first + 2), /1 of 3 done/);

    const served = await api("GET", `/v1/runs/${id}/todo`);
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.deepEqual({ ...served.body, updated_at: typeof served.body.updated_at }, { run_id: id, scope: `run:${id}`, items: LIST, done: 1, updated_at: "string", updated_by_run: id });

    const events = (await runtime.events.list(id)).filter((e) => e.type === "todo");
    assert.equal(events.length, 1, "one write, one event (a read emits none)");
    assert.deepEqual((events[0]!.data as { items: unknown }).items, LIST);

    const { records } = await runtime.audit.query({ runId: id, kind: "tool_call", limit: 20 });
    // Each ToolCall an intent and its outcome, as any ToolCall.
    assert.deepEqual(records.map((r) => `${r.tool} ${r.status}`).sort(), ["todo_read intent", "todo_read ok", "todo_write intent", "todo_write ok"]);
  });

  test("todo: conversation keeps one list across the conversation's runs; todo: run starts each run empty", async () => {
    fake.reply({ type: "tool_calls", calls: [{ name: "todo_write", arguments: { items: LIST.slice(0, 1) } }] }, { type: "text", text: "noted" });
    const one = await api("POST", "/v1/runs?wait=true", { agent: "keeper", task: "plan" });
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const conversation = one.body.run.conversation_id as string;
    fake.reply({ type: "tool_calls", calls: [{ name: "todo_read", arguments: {} }] }, { type: "text", text: "still there" });
    const before = fake.requests.length;
    const two = await api("POST", "/v1/runs?wait=true", { agent: "keeper", task: "go on", conversation_id: conversation });
    assert.equal(two.status, 201, JSON.stringify(two.body));
    assert.match(sent(fake, before + 1), /read the failing test/);
    const served = await api("GET", `/v1/runs/${two.body.run.id}/todo`);
    assert.equal(served.body.scope, `conversation:${conversation}`);
    assert.equal(served.body.updated_by_run, one.body.run.id);

    fake.reply({ type: "tool_calls", calls: [{ name: "todo_read", arguments: {} }] }, { type: "text", text: "fresh" });
    const at = fake.requests.length;
    const fresh = await api("POST", "/v1/runs?wait=true", { agent: "planner", task: "new work" });
    assert.match(sent(fake, at + 1), /the list is empty/);
    const empty = await api("GET", `/v1/runs/${fresh.body.run.id}/todo`);
    assert.deepEqual([empty.body.items, empty.body.updated_at], [[], null]);
  });
});

describe("refusals, each beside a control", () => {
  const item = (over: Record<string, unknown> = {}) => ({ id: "a", text: "do it", status: "pending", ...over });
  const rows: Array<[string, unknown, RegExp | null]> = [
    ["control: a valid list", { items: [item(), item({ id: "b" })] }, null],
    ["control: an empty list", { items: [] }, null],
    ["no items field", {}, /^items: /],
    ["a status the list does not know", { items: [item({ status: "blocked" })] }, /^items\.0\.status: expected one of pending, in_progress, done/],
    ["an empty text", { items: [item({ text: "   " })] }, /^items\.0\.text: must not be empty/],
    ["a text too long", { items: [item({ text: "x".repeat(501) })] }, /^items\.0\.text: at most 500 characters/],
    ["an id used twice", { items: [item(), item()] }, /^items\.1\.id: "a" is used twice/],
    ["an id with spaces", { items: [item({ id: "a b" })] }, /^items\.0\.id: expected an id/],
    ["too many items", { items: Array.from({ length: 51 }, (_, i) => item({ id: `i${i}` })) }, /^items: at most 50 items/],
    ["an unknown field", { items: [item({ due: "monday" })] }, /^items\.0\.due: /],
  ];
  for (const [name, input, refused] of rows) {
    test(`parseTodoWrite: ${name}`, () => {
      if (refused === null) assert.ok(Array.isArray(parseTodoWrite(input)));
      else assert.throws(() => parseTodoWrite(input), (error: unknown) => error instanceof TodoInputError && refused.test(error.message));
    });
  }

  test("the model is told which field was wrong, the list stays as it was, the refusal is audited", async () => {
    fake.reply(
      { type: "tool_calls", calls: [{ name: "todo_write", arguments: { items: LIST } }] },
      { type: "tool_calls", calls: [{ name: "todo_write", arguments: { items: [{ id: "1", text: "x", status: "blocked" }] } }] },
      { type: "text", text: "ok" },
    );
    const at = fake.requests.length;
    const run = await api("POST", "/v1/runs?wait=true", { agent: "planner", task: "t" });
    assert.equal(run.status, 201, JSON.stringify(run.body));
    assert.match(sent(fake, at + 2), /invalid-input.*items\.0\.status: expected one of pending, in_progress, done/);
    const served = await api("GET", `/v1/runs/${run.body.run.id}/todo`);
    assert.deepEqual(served.body.items, LIST);
    const { records } = await runtime.audit.query({ runId: run.body.run.id, kind: "tool_call", limit: 20 });
    assert.ok(records.some((r) => r.status === "denied" && r.denial?.capability === "todo"), JSON.stringify(records.map((r) => [r.tool, r.status])));
  });

  test("an agent without todo has no todo tools: the call is an unknown tool", async () => {
    fake.reply({ type: "tool_calls", calls: [{ name: "todo_write", arguments: { items: LIST } }] }, { type: "text", text: "ok" });
    const at = fake.requests.length;
    const run = await api("POST", "/v1/runs?wait=true", { agent: "plain", task: "t" });
    assert.doesNotMatch(sent(fake, at), /todo_write/);
    assert.match(sent(fake, at + 1), /unknown-tool/);
    const served = await api("GET", `/v1/runs/${run.body.run.id}/todo`);
    assert.deepEqual(served.body.items, []);
  });

  test("GET /v1/runs/:id/todo of no such run: 404 naming the field", async () => {
    const missing = await api("GET", "/v1/runs/run_nope/todo");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.field, "path.id");
  });
});
