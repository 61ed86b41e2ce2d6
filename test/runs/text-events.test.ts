/**
 * The model's text as run events: streamed while the model writes (the fake holds its last
 * fragment until the test has seen the first ones), stored in order before the Step that
 * answered, the same whether the provider streams or not, and the model_call audit records the
 * same usage and stop reason either way.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AuditRecord } from "../../runtime/audit/index.js";
import type { Runtime, RunEvent } from "../../runtime/index.js";
import { testRuntime } from "../helpers/runtime.js";
import { LLM_SECRET, PROVIDERS, until, wire, type Fake } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime());
  await runtime.setSecret(LLM_SECRET, "test-key");
});
after(() => dispose());

async function defineAgent(provider: "anthropic" | "openai", baseUrl: string, stream: boolean): Promise<string> {
  const name = `txt-${provider}-${stream ? "s" : "w"}-${++n}`;
  await runtime.defineAgent({
    name,
    description: "text events test agent",
    model: { provider, id: "test-model", base_url: baseUrl, api_key_secret: LLM_SECRET, max_tokens: 1024, stream },
    system_prompt: "You are a careful test agent.",
    plugins: [{ name: "files", version: "*" }],
    grants: { log: {} },
  });
  return name;
}

type TextEvent = Extract<RunEvent, { type: "text" }>;

async function stored(runId: string): Promise<RunEvent[]> {
  await runtime.getRun(runId)?.flushEvents();
  return (await runtime.events.list(runId)).map((e) => e.data);
}

const ANSWER = "The first line of the answer.\nThe second line, which ends the answer.";

for (const { provider, start } of PROVIDERS) {
  describe(`text events (${provider})`, () => {
    let fake: Fake & { holding(count?: number): Promise<void> };
    let holds = 0;
    before(async () => {
      fake = (await start()) as typeof fake;
    });
    after(() => fake.close());

    test("the answer's text is a run event before the model call ends; all of it, in order, before the Step that answered", async () => {
      const name = await defineAgent(provider, fake.baseUrl, true);
      let release!: () => void;
      const hold = new Promise<void>((resolve) => (release = resolve));
      fake.reply({ type: "tool_calls", text: "Listing first.", calls: [{ name: wire("files.list_dir"), arguments: { path: "/nowhere" } }] }, { type: "text", text: ANSWER, hold });
      const { run, settled } = await runtime.submitRun({ agent: name, task: "Answer in two lines." });
      const live: TextEvent[] = [];
      run.onEvent((event) => {
        if (event.type === "text") live.push(event);
      });
      await fake.holding(++holds);
      // The stream is held before its last fragment: some text has arrived, the run goes on.
      await until(() => live.some((e) => e.stepId === "step_2"), "a text event of the answering Step");
      assert.equal(run.ended, false);
      const sofar = live.filter((e) => e.stepId === "step_2").map((e) => e.text).join("");
      assert.ok(sofar.length > 0 && sofar.length < ANSWER.length && ANSWER.startsWith(sofar), JSON.stringify(sofar));
      release();
      await settled;

      const record = await runtime.records.get(run.id);
      assert.equal(record?.endReason, "completed");
      const events = await stored(run.id);
      const texts = (step: string) => events.filter((e): e is TextEvent => e.type === "text" && e.stepId === step).map((e) => e.text).join("");
      assert.equal(texts("step_1"), "Listing first.", "the text before a tool call streams too");
      assert.equal(texts("step_2"), ANSWER);
      assert.equal(texts("step_2"), record?.result);
      const respond = events.findIndex((e) => e.type === "step" && e.action === "respond");
      const lastText = events.findLastIndex((e) => e.type === "text");
      assert.ok(respond > lastText, "every text event comes before the Step that answered");
      // Complete lines go out whole: the first line is one event of its own.
      assert.ok(events.some((e) => e.type === "text" && e.text === "The first line of the answer.\n"));
    });

    test("streamed or not: the same text events joined, and the same model_call records (tokens, stop reason)", async () => {
      const shapes: Array<{ text: string; calls: unknown[] }> = [];
      for (const stream of [true, false]) {
        const name = await defineAgent(provider, fake.baseUrl, stream);
        fake.reply({ type: "tool_calls", calls: [{ name: wire("files.list_dir"), arguments: { path: "/nowhere" } }] }, { type: "text", text: ANSWER });
        const { run, settled } = await runtime.submitRun({ agent: name, task: "Answer in two lines." });
        await settled;
        const events = await stored(run.id);
        const calls = (await runtime.audit.query({ runId: run.id, kind: "model_call", order: "asc" })).records.map((r: AuditRecord) => {
          const m = r.modelCall!;
          return { status: r.status, stepId: r.stepId, inputTokens: m.inputTokens, outputTokens: m.outputTokens, stopReason: m.stopReason, attempts: m.attempts, messages: m.messages, tools: m.tools };
        });
        assert.equal(calls.length, 2);
        shapes.push({ text: events.filter((e): e is TextEvent => e.type === "text").map((e) => e.text).join(""), calls });
      }
      assert.equal(shapes[0]!.text, ANSWER);
      assert.deepEqual(shapes[0], shapes[1]);
    });
  });
}
