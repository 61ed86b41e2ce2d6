/**
 * What the model sends that the loop refuses before any tool runs: calls past the turn's limit,
 * a tool or sub-agent the run does not have, arguments that are not a JSON object. Each is an
 * error the model sees and a `denied` audit record; none fails the run or names the node's other
 * agents. Each row has a control beside it.
 */
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { startFakeAnthropic } from "../helpers/fake-llm/index.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { LLM_SECRET, sent, wire, type Fake } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let fake: Fake;
let docs: string;

before(async () => {
  docs = await tempDir();
  await writeFile(join(docs, "a.txt"), "file a\n");
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 } }));
  await runtime.setSecret(LLM_SECRET, "test-key");
  fake = await startFakeAnthropic();
  const model = { provider: "anthropic", id: "m", base_url: fake.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 512 };
  const plugins = [{ name: "files", version: "*" }];
  const grants = { "fs.read": { mounts: [{ guest: "/docs", host: docs }] } };
  await runtime.defineAgent({ name: "helper", description: "finds things", model, system_prompt: "Helper.", plugins, grants });
  await runtime.defineAgent({ name: "secretive-payroll", description: "not for the lead", model, system_prompt: "Payroll.", plugins, grants });
  await runtime.defineAgent({
    name: "lead", description: "delegates", model, system_prompt: "Lead.", plugins,
    grants: { ...grants, "agent.spawn": { agents: ["helper"] } }, sub_agents: ["helper"], limits: { max_tool_calls_per_turn: 3 },
  });
});
after(async () => {
  await fake.close();
  await dispose();
  await rm(docs, { recursive: true, force: true });
});

// Distinct calls (the loop stops a third identical one), each within read_file's schema.
const read = (n: number) => ({ name: wire("files.read_file"), arguments: { path: "/docs/a.txt", limit: n + 1 } });

async function denials(runId: string) {
  const { records } = await runtime.audit.query({ runId, kind: "tool_call", status: "denied", limit: 100 });
  return records;
}

async function toolCallsRun(runId: string): Promise<number> {
  await runtime.getRun(runId)?.flushEvents();
  return (await runtime.events.list(runId)).filter((e) => e.data.type === "tool-call").length;
}

describe("max_tool_calls_per_turn", () => {
  test("a turn asking for 40 calls runs the first 3; the model is told once; one denial is on record", async () => {
    const first = fake.requests.length;
    fake.reply({ type: "tool_calls", calls: Array.from({ length: 40 }, (_, i) => read(i)) }, { type: "text", text: "done" });
    const { run, settled } = await runtime.submitRun({ agent: "lead", task: "read a lot" });
    await settled;
    const record = (await runtime.records.get(run.id))!;
    assert.equal(record.endReason, "completed");
    assert.equal(await toolCallsRun(run.id), 3);
    const next = sent(fake, first + 1);
    assert.match(next, /asked for 40 tool calls in one turn; only the first 3 ran \(limits\.max_tool_calls_per_turn\)/);
    // The dropped calls are gone from the conversation: no result is owed for them.
    assert.equal((next.match(/"type":"tool_use"/g) ?? []).length, 3);
    assert.equal((next.match(/"type":"tool_result"/g) ?? []).length, 3);
    const denied = await denials(run.id);
    assert.deepEqual(denied.map((r) => r.denial?.reason), ["too-many-tool-calls"]);
  });

  test("control: a turn of exactly the limit runs every call and nothing is denied", async () => {
    fake.reply({ type: "tool_calls", calls: [read(1), read(2), read(3)] }, { type: "text", text: "done" });
    const { run, settled } = await runtime.submitRun({ agent: "lead", task: "read three" });
    await settled;
    assert.equal((await runtime.records.get(run.id))!.endReason, "completed");
    assert.equal(await toolCallsRun(run.id), 3);
    assert.deepEqual(await denials(run.id), []);
  });

  test("the limit is validated: 0 and 1001 are refused, the default is 32", async () => {
    const base = { description: "x", model: { provider: "anthropic", id: "m" }, system_prompt: "x", plugins: [] };
    for (const bad of [0, 1001, 2.5]) {
      await assert.rejects(runtime.defineAgent({ name: "lim-bad", ...base, limits: { max_tool_calls_per_turn: bad } }), /max_tool_calls_per_turn/);
    }
    await runtime.defineAgent({ name: "lim-default", ...base });
    assert.equal(runtime.agents().find((a) => a.name === "lim-default")?.limits.max_tool_calls_per_turn, 32);
  });
});

const unknown: Array<[string, string]> = [
  ["a made-up plugin tool", "ghost__read_everything"],
  ["a made-up tool of a granted plugin", wire("files.delete_everything")],
  ["a sub-agent that does not exist", "subagent_ghost"],
  ["an agent of the node the lead does not list", "subagent_secretive-payroll"],
  ["a name thousands of characters long", `x${"y".repeat(5000)}`],
];

describe("a tool or sub-agent the run does not have", () => {
  for (const [label, name] of unknown) {
    test(`${label}: an error result the model sees, a denial on record, the run goes on`, async () => {
      const first = fake.requests.length;
      fake.reply({ type: "tool_calls", calls: [{ name, arguments: { task: "t" } }] }, { type: "text", text: "recovered" });
      const { run, settled } = await runtime.submitRun({ agent: "lead", task: "try" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "completed", record.result ?? "");
      assert.equal(record.result, "recovered");
      const told = (fake.requests[first + 1]!.body as { messages: Array<{ content: Array<{ type: string; content?: string }> }> }).messages
        .flatMap((m) => m.content)
        .filter((b) => b.type === "tool_result")
        .map((b) => b.content ?? "")
        .join("\n");
      assert.match(told, /unknown-tool/);
      assert.match(told, /subagent_helper/, "the run's own tools are named");
      assert.doesNotMatch(told, /its tools: [^"]*secretive-payroll|known agents/, "the node's other agents are never listed");
      const denied = await denials(run.id);
      assert.deepEqual(denied.map((r) => r.denial?.reason), ["unknown-tool"]);
      assert.ok((denied[0]!.toolCall?.name.length ?? 0) <= 200);
    });
  }

  test("control: the sub-agent the lead lists is spawned and nothing is denied", async () => {
    fake.reply({ type: "tool_calls", calls: [{ name: "subagent_helper", arguments: { task: "find it" } }] }, { type: "text", text: "child said hi" }, { type: "text", text: "lead done" });
    const { run, settled } = await runtime.submitRun({ agent: "lead", task: "delegate" });
    await settled;
    assert.equal((await runtime.records.get(run.id))!.result, "lead done");
    assert.deepEqual(await denials(run.id), []);
  });

  test("an API client starting a run of an unknown agent is not told the node's agents", async () => {
    await assert.rejects(runtime.submitRun({ agent: "nobody-here", task: "t" }), (error: Error) => {
      assert.match(error.message, /no agent nobody-here/);
      assert.doesNotMatch(error.message, /helper|lead|secretive-payroll/);
      return true;
    });
  });
});

describe("malformed arguments", () => {
  const malformed: Array<[string, string]> = [
    ["not JSON", "{not json"],
    ["a JSON array", "[1,2]"],
    ["a JSON string", '"path"'],
  ];
  for (const [label, args] of malformed) {
    test(`${label}: told to the model and audited as malformed input`, async () => {
      fake.reply({ type: "tool_calls", calls: [{ name: wire("files.read_file"), arguments: args }] }, { type: "text", text: "ok" });
      const { run, settled } = await runtime.submitRun({ agent: "lead", task: "read" });
      await settled;
      assert.equal((await runtime.records.get(run.id))!.endReason, "completed");
      const denied = await denials(run.id);
      assert.deepEqual(denied.map((r) => [r.denial?.capability, r.denial?.reason]), [["tool-input", "malformed-input"]]);
    });
  }

  test("a sub-agent call without a task: told to the model and audited as invalid-input", async () => {
    fake.reply({ type: "tool_calls", calls: [{ name: "subagent_helper", arguments: { task: 42 } }] }, { type: "text", text: "ok" });
    const { run, settled } = await runtime.submitRun({ agent: "lead", task: "delegate" });
    await settled;
    assert.equal((await runtime.records.get(run.id))!.endReason, "completed");
    assert.deepEqual((await denials(run.id)).map((r) => r.denial?.reason), ["invalid-input"]);
  });

  test("control: a JSON object is run, not denied", async () => {
    fake.reply({ type: "tool_calls", calls: [read(0)] }, { type: "text", text: "ok" });
    const { run, settled } = await runtime.submitRun({ agent: "lead", task: "read" });
    await settled;
    assert.equal(await toolCallsRun(run.id), 1);
    assert.deepEqual(await denials(run.id), []);
  });
});
