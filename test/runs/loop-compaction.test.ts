/**
 * Summarising compaction through the whole runtime, against both fake servers: a conversation
 * whose request passes model.compaction.at_tokens has its older turns summarised by the agent's
 * model (a `compact` Step, audited as a model_call), the summary in the history zone and the
 * originals kept; the API lists and undoes it; a summary call that fails or answers garbage
 * leaves the history as it was and the run completes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import type { StepEvent } from "../../runtime/runs/types.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";
import { testRuntime } from "../helpers/runtime.js";
import { LLM_SECRET, PROVIDERS, sent, type Fake } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Listening;
const token = { client: "", other: "" };
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime());
  await runtime.setSecret(LLM_SECRET, "test-key");
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token.client = (await tokens.create("client")).token;
  token.other = (await tokens.create("client")).token;
  server = await listen(createApp({ runtime, tokens, version: "test" }));
});
after(async () => {
  await server.close();
  await dispose();
});

function api(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  return jsonCall(server.base, method, path, { ...options, token: options.token ?? token.client });
}

/** A task of some 300 tokens naming `word`, so three turns pass the agent's threshold. */
const task = (word: string) => `Remember the word ${word}. ${"Some filler text for the context budget. ".repeat(40)}`;

async function steps(runId: string): Promise<StepEvent[]> {
  await runtime.getRun(runId)?.flushEvents();
  return (await runtime.events.list(runId)).map((e) => e.data as StepEvent).filter((e) => e.type === "step");
}

for (const { provider, start } of PROVIDERS) {
  describe(`compaction (${provider})`, () => {
    let fake: Fake;
    before(async () => (fake = await start()));
    after(() => fake.close());

    const agent = async () => {
      const name = `compact-${provider}-${++n}`;
      await runtime.defineAgent({
        name,
        description: "talks long",
        model: { provider, id: "test-model", base_url: fake.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 256, context_tokens: 16_000, compaction: { at_tokens: 1200, keep_recent_turns: 1, summary_tokens: 200 } },
        system_prompt: "You remember words.",
        plugins: [{ name: "files", version: "*", tools: ["read_file"] }],
      });
      return name;
    };

    /** Runs `text` in the conversation (through the API, as the client), the fake answering `replies`. */
    const say = async (name: string, text: string, conversation: string | undefined, ...replies: Parameters<Fake["reply"]>) => {
      fake.reply(...replies);
      const answer = await api("POST", "/v1/runs?wait=true", { body: { agent: name, task: text, ...(conversation === undefined ? {} : { conversation_id: conversation }) } });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.run.end_reason, "completed", JSON.stringify(answer.body.run));
      return answer.body.run as { id: string; conversation_id: string };
    };

    test("older turns are summarised by the agent's model, the summary replaces them, the API lists and undoes it", async () => {
      const name = await agent();
      const first = await say(name, task("apple"), undefined, { type: "text", text: "Noted: apple." });
      const conversation = first.conversation_id;
      await say(name, task("banana"), conversation, { type: "text", text: "Noted: banana." });
      const before = fake.requests.length;
      const third = await say(name, task("cherry"), conversation, { type: "text", text: "The person asked the agent to remember apple." }, { type: "text", text: "Noted: cherry." });
      assert.equal(fake.requests.length - before, 2, "one summary call, then the Step");

      const summaryCall = sent(fake, before);
      assert.match(summaryCall, /You write the summary that replaces earlier messages/);
      assert.match(summaryCall, /Remember the word apple/, "the oldest turn is in the transcript");
      assert.doesNotMatch(summaryCall, /banana/, "the latest turn is kept (keep_recent_turns: 1)");
      assert.doesNotMatch(summaryCall, /"tools"|read_file/, "the summary call offers no tool");
      const step = sent(fake, before + 1);
      assert.match(step, /<history>\\nSummary of earlier messages 1–2 of this conversation \(compaction 1\):\\nThe person asked the agent to remember apple\.\\n<\/history>/);
      assert.doesNotMatch(step, /Remember the word apple/, "the compacted turn is not sent");
      assert.match(step, /Remember the word banana/, "control: the kept turn is");
      assert.match(step, /files__read_file/, "control: the Step offers the agent's tools");

      const compact = (await steps(third.id)).find((s) => s.action === "compact");
      assert.ok(compact, "a compact Step");
      assert.equal(compact.stepId, "step_1");
      assert.deepEqual({ ...compact.compaction, tokensBefore: 0, tokensAfter: 0 }, { n: 1, fromSeq: 1, throughSeq: 2, turns: 1, tokensBefore: 0, tokensAfter: 0 });
      assert.ok(compact.compaction!.tokensAfter < compact.compaction!.tokensBefore);
      assert.ok(compact.usage !== null, "its usage is the run's");
      const { records } = await runtime.audit.query({ runId: third.id, kind: "model_call", limit: 10 });
      assert.deepEqual(records.map((r) => r.stepId).sort(), ["step_1", "step_2"], "the summary call is audited like the Step's");

      const listed = await api("GET", `/v1/conversations/${conversation}/compactions`);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(listed.body.compactions.map((c: any) => [c.n, c.status, c.from_seq, c.through_seq, c.run_id, c.summary]), [[1, "active", 1, 2, third.id, "The person asked the agent to remember apple."]]);
      const history = await api("GET", `/v1/conversations/${conversation}`);
      assert.match(JSON.stringify(history.body.conversation.messages[0]), /Remember the word apple/, "the originals stay in the store");
      assert.equal((await api("GET", `/v1/conversations/${conversation}/compactions`, { token: token.other })).status, 404, "another client's conversation is not shown");
      assert.equal((await api("POST", `/v1/conversations/${conversation}/compactions/1/undo`, { token: token.other })).status, 404, "nor undone by it");

      const undone = await api("POST", `/v1/conversations/${conversation}/compactions/1/undo`);
      assert.equal(undone.status, 200, JSON.stringify(undone.body));
      assert.equal(undone.body.compaction.status, "undone");
      const again = await api("POST", `/v1/conversations/${conversation}/compactions/1/undo`);
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, "compaction_undone");
      assert.equal((await api("POST", `/v1/conversations/${conversation}/compactions/7/undo`)).status, 404);
      const bad = await api("POST", `/v1/conversations/${conversation}/compactions/one/undo`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.field, "path.n");

      // Undone: the restored turn is sent again and never compacted again; the next turn is.
      const fourthAt = fake.requests.length;
      await say(name, task("damson"), conversation, { type: "text", text: "They asked to remember banana." }, { type: "text", text: "Noted: damson." });
      const summary2 = sent(fake, fourthAt);
      assert.match(summary2, /banana/);
      assert.doesNotMatch(summary2, /apple/, "the restored turn is not summarised again");
      const step4 = sent(fake, fourthAt + 1);
      assert.match(step4, /Remember the word apple/, "the undone compaction's messages are sent again");
      assert.doesNotMatch(step4, /Remember the word banana/);
      assert.match(step4, /messages 3–4 of this conversation \(compaction 2\)/);
    });

    const failures: Array<{ name: string; reply: Parameters<Fake["reply"]>[0]; reason: RegExp }> = [
      { name: "a tool call instead of a summary", reply: { type: "tool_calls", calls: [{ name: "files__read_file", arguments: { path: "/x" } }] }, reason: /^compaction_unusable: the model called a tool instead of writing a summary$/ },
      { name: "an empty summary", reply: { type: "text", text: "" }, reason: /^compaction_unusable: the model's summary was empty$/ },
      { name: "a provider error", reply: { type: "error", status: 400 }, reason: /^compaction_failed: llm_bad_request: / },
    ];
    for (const f of failures) {
      test(`${f.name}: the history stays as it was, the run completes and tries no second compaction`, async () => {
        const name = await agent();
        const first = await say(name, task("apple"), undefined, { type: "text", text: "Noted." });
        await say(name, task("banana"), first.conversation_id, { type: "text", text: "Noted." });
        const before = fake.requests.length;
        const third = await say(name, task("cherry"), first.conversation_id, f.reply, { type: "tool_calls", calls: [{ name: "files__read_file", arguments: { path: "/nowhere" } }] }, { type: "text", text: "Noted: cherry." });
        assert.equal(fake.requests.length - before, 3, "the summary call, then two Steps: no second summary call");
        assert.match(sent(fake, before + 1), /Remember the word apple/, "the turn is sent as it was");
        assert.doesNotMatch(sent(fake, before + 1), /<history>/);
        const compact = (await steps(third.id)).filter((s) => s.action === "compact");
        assert.equal(compact.length, 1);
        assert.match(compact[0]!.reason ?? "", f.reason);
        assert.deepEqual((await api("GET", `/v1/conversations/${first.conversation_id}/compactions`)).body.compactions, []);
      });
    }
  });
}

test("the manifest's compaction block is validated with the field named", async () => {
  const model = { provider: "openai", id: "m", base_url: "http://127.0.0.1:9/v1", context_tokens: 4096 };
  const define = (compaction: Record<string, unknown>) => runtime.defineAgent({ name: `bad-compaction-${++n}`, description: "d", model: { ...model, compaction }, system_prompt: "s" } as never);
  await assert.rejects(define({ at_tokens: 4096 }), /model\.compaction\.at_tokens: must be below model\.context_tokens \(4096\)/);
  await assert.rejects(define({ summary_tokens: 4000 }), /model\.compaction\.summary_tokens: must be at most half of model\.context_tokens \(4096\)/);
  await assert.rejects(define({ keep_recent_turns: -1 }), /model\.compaction\.keep_recent_turns/);
  await assert.rejects(define({ at: 10 }), /model\.compaction/);
  await define({ at_tokens: 3000, keep_recent_turns: 0 });
});
