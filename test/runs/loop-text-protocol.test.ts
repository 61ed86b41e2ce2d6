/**
 * `model.tool_protocol: text` through the whole runtime, against both fake servers replaying
 * text-only transcripts (test/fixtures/text-protocol): no `tools` field leaves the machine, the
 * tool list in the prompt names exactly the granted tools, a call in the text runs through the
 * same validation, policy and audit as a native call, the markup never shows as model text, and
 * broken markup is corrected and then fails the run with invalid_input.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { LLM_SECRET, PROVIDERS, sent, withLoopRuntime, type Fake } from "./_loop.js";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/text-protocol/", import.meta.url));

function transcript(file: string): Array<{ type: "text"; text: string }> {
  const { turns } = JSON.parse(readFileSync(join(FIXTURES, file), "utf8")) as { turns: string[] };
  return turns.map((text) => ({ type: "text", text }));
}

let runtime: Runtime;
let docs: string;
let n = 0;

withLoopRuntime({ "a.txt": "file a\n" }, (r, d) => {
  runtime = r;
  docs = d;
});

async function events(runId: string) {
  await runtime.getRun(runId)?.flushEvents();
  return (await runtime.events.list(runId)).map((e) => e.data);
}

async function toolCalls(runId: string, status: "ok" | "denied" | "error") {
  const { records } = await runtime.audit.query({ runId, kind: "tool_call", status, limit: 50 });
  return records;
}

for (const { provider, start } of PROVIDERS) {
  describe(`text tool protocol (${provider})`, () => {
    let fake: Fake;
    before(async () => (fake = await start()));
    after(() => fake.close());
    const agent = async (model: Record<string, unknown> = {}, limits: Record<string, number> = {}) => {
      const name = `text-${provider}-${++n}`;
      await runtime.defineAgent({
        name,
        description: "reads files without native tool calling",
        model: { provider, id: "small-model", base_url: fake.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 512, tool_protocol: "text", ...model },
        system_prompt: "You read files.",
        plugins: [{ name: "files", version: "*", tools: ["read_file", "list_dir"] }],
        grants: { "fs.read": { mounts: [{ guest: "/docs", host: docs }] } },
        limits,
      });
      return name;
    };

    test("a call written in the text runs through policy and audit; its result comes back as text", async () => {
      const first = fake.requests.length;
      fake.reply(...transcript("read-then-answer.json"));
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "What does a.txt say?" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "completed");
      assert.equal(record.result, "The file says: file a");
      assert.equal(fake.requests.length - first, 2);
      for (const i of [first, first + 1]) assert.doesNotMatch(sent(fake, i), /"tools"/, "no tools field is sent");
      const prompt = sent(fake, first);
      // Exactly the granted tools are listed: read_file and list_dir, not write_file or grep.
      const listed = [...prompt.matchAll(/\\n- ([a-z_]+\.[a-z_]+)\(/g)].map((m) => m[1]).sort();
      assert.deepEqual(listed, ["files.list_dir", "files.read_file"]);
      assert.match(sent(fake, first + 1), /<tool_result name=\\"files.read_file\\" status=\\"ok\\">\\n\{\\"path\\":\\"\/docs\/a.txt\\",\\"content\\":\\"file a/);
      assert.equal((await toolCalls(run.id, "ok")).filter((r) => r.toolCall?.name === "files.read_file").length, 1);
      const data = await events(run.id);
      const shown = data.filter((e) => e.type === "text").map((e) => (e.type === "text" ? e.text : "")).join("");
      assert.match(shown, /I'll read the file first\./);
      assert.doesNotMatch(shown, /tool_call|\/docs\/a\.txt/, "the call markup is never model text");
      assert.ok(data.some((e) => e.type === "tool-call"), "the call is a ToolCall event like a native one");
    });

    test("several calls in one turn run in order; past limits.max_tool_calls_per_turn they do not", async () => {
      const first = fake.requests.length;
      const call = (limit: number) => `<tool_call name="files.read_file">{"path": "/docs/a.txt", "limit": ${limit}}</tool_call>`;
      fake.reply({ type: "text", text: `Three reads.\n${call(1)}\n${call(2)}\n${call(3)}` }, { type: "text", text: "Read twice." });
      const { run, settled } = await runtime.submitRun({ agent: await agent({}, { max_tool_calls_per_turn: 2 }), task: "Read a.txt thrice" });
      await settled;
      assert.equal((await runtime.records.get(run.id))!.endReason, "completed");
      assert.equal((await toolCalls(run.id, "ok")).filter((r) => r.toolCall?.name === "files.read_file").length, 2);
      const next = sent(fake, first + 1);
      assert.equal((next.match(/<tool_result name=\\"files/g) ?? []).length, 2, next);
      assert.match(next, /asked for 3 tool calls in one turn; only the first 2 ran/);
    });

    test("arguments failing the tool's schema get a correction; the model then gets it right", async () => {
      const first = fake.requests.length;
      fake.reply(
        { type: "text", text: '<tool_call name="files.read_file">{"file": "/docs/a.txt"}</tool_call>' },
        { type: "text", text: '<tool_call name="files.read_file">path: /docs/a.txt</tool_call>' },
        { type: "text", text: "It says file a." },
      );
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Read a.txt" });
      await settled;
      assert.equal((await runtime.records.get(run.id))!.endReason, "completed");
      assert.match(sent(fake, first + 1), /status=\\"error\\".*invalid-input/);
    });

    test("a path outside the grant is denied by policy, as for a native call", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "text", text: '<tool_call name="files.read_file">{"path": "/etc/passwd"}</tool_call>' }, { type: "text", text: "I may not read it." });
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Read /etc/passwd" });
      await settled;
      assert.equal((await runtime.records.get(run.id))!.endReason, "completed");
      assert.match(sent(fake, first + 1), /status=\\"error\\"/);
      assert.ok((await toolCalls(run.id, "denied")).length + (await toolCalls(run.id, "error")).length >= 1);
      assert.doesNotMatch(sent(fake, first + 1), /root:/);
    });

    test("a tool it was not granted is an unknown tool, and the correction names only its own", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "text", text: '<tool_call name="files.write_file">{"path": "/docs/b.txt", "content": "x"}</tool_call>' }, { type: "text", text: "Cannot write." });
      const { run, settled } = await runtime.submitRun({ agent: await agent(), task: "Write b.txt" });
      await settled;
      assert.equal((await runtime.records.get(run.id))!.endReason, "completed");
      assert.match(sent(fake, first + 1), /this run has no tool .*files.write_file.*its tools: files.read_file, files.list_dir/);
    });

    test("broken markup is answered with corrections, then fails the run with invalid_input", async () => {
      const first = fake.requests.length;
      fake.reply(...transcript("broken-markup.json"));
      const { run, settled } = await runtime.submitRun({ agent: await agent({ tool_call_attempts: 2 }), task: "Read a.txt" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "failed");
      assert.match(record.result ?? "", /invalid 2 turns in a row/);
      assert.equal(fake.requests.length - first, 2, "tool_call_attempts: 2 stops after the second broken turn");
      assert.match(sent(fake, first + 1), /was not closed with <\/tool_call>/);
      const finish = (await events(run.id)).filter((e) => e.type === "step" && e.action === "finish").at(-1);
      assert.equal(finish?.type === "step" ? finish.reason : undefined, "invalid_input");
      const denied = await toolCalls(run.id, "denied");
      assert.ok(denied.some((r) => r.denial?.reason === "malformed-input"), "each broken call is a denial on record");
    });
  });
}
