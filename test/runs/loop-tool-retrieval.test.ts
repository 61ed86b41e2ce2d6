/**
 * `tool_retrieval`: an agent is shown its most relevant tools per Step and finds the rest with
 * `tools.search`, against both fake providers. Never a tool the run does not have: a search
 * ranks only the run's own tools, and a name outside them is an unknown tool as before.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { parseAgentManifest } from "../../runtime/agents/index.js";
import { LLM_SECRET, PROVIDERS, wire, withLoopRuntime, type Fake } from "./_loop.js";

let runtime: Runtime;
let docs: string;
let n = 0;

withLoopRuntime({ "notes.txt": "buy milk\n", "todo.md": "call the plumber\n" }, (r, d) => {
  runtime = r;
  docs = d;
});

/** The tool names one recorded request offered the model, in either wire format. */
function offered(fake: Fake, index: number): string[] {
  const body = fake.requests[index]!.body as { tools?: Array<{ name?: string; function?: { name?: string } }> };
  return (body.tools ?? []).map((t) => t.name ?? t.function?.name ?? "?");
}

for (const { provider, start } of PROVIDERS) {
  describe(`tool retrieval (${provider})`, () => {
    let fake: Fake;
    before(async () => (fake = await start()));
    after(() => fake.close());

    const agent = async (retrieval: Record<string, unknown> | undefined, tools?: string[]) => {
      const name = `ret-${provider}-${++n}`;
      await runtime.defineAgent({
        name,
        description: "tool retrieval test agent",
        model: { provider, id: "test-model", base_url: fake.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 512 },
        system_prompt: "You are a careful test agent.",
        plugins: [{ name: "files", version: "*", ...(tools ? { tools } : {}) }],
        grants: { "fs.read": { mounts: [{ guest: "/docs", host: docs }] } },
        ...(retrieval ? { tool_retrieval: retrieval } : {}),
      });
      return name;
    };

    test("a Step shows the tools the task asks for and tools.search; a search finds another, shown from then on", async () => {
      const first = fake.requests.length;
      fake.reply(
        { type: "tool_calls", calls: [{ name: "tools__search", arguments: { query: "list the entries of a directory" } }] },
        { type: "tool_calls", calls: [{ name: wire("files.list_dir"), arguments: { path: "/docs" } }] },
        { type: "text", text: "notes.txt and todo.md" },
      );
      const { run, settled } = await runtime.submitRun({ agent: await agent({ max_tools: 2 }), task: "grep the files for the word milk" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.endReason, "completed", record.result ?? "");
      const step1 = offered(fake, first);
      assert.equal(step1.length, 3, `two tools and the meta-tool: ${step1.join(", ")}`);
      assert.ok(step1.includes(wire("files.grep")), step1.join(", "));
      assert.ok(step1.includes("tools__search"));
      // The search's answer names only the run's tools; the one found is offered in the next Step.
      const step2 = offered(fake, first + 1);
      assert.ok(step2.includes(wire("files.list_dir")), step2.join(", "));
      assert.ok(step2.length <= 3, step2.join(", "));
      const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", limit: 50 });
      const search = records.filter((r) => r.tool === "tools.search");
      // Its intent names the query; its outcome, what it returned.
      assert.deepEqual(search.map((r) => r.status), ["intent", "ok"]);
      assert.equal((JSON.parse(search[0]!.args ?? "{}") as { query: string }).query, "list the entries of a directory");
      assert.equal((JSON.parse(search[1]!.args ?? "{}") as { found: string[] }).found[0], "files.list_dir");
      assert.ok(records.some((r) => r.tool === "files.list_dir" && r.status === "ok"), "the tool found then ran through the run");
    });

    test("control: without tool_retrieval every tool is shown and there is no tools.search", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "text", text: "done" });
      const { settled } = await runtime.submitRun({ agent: await agent(undefined), task: "grep the files for milk" });
      await settled;
      const names = offered(fake, first);
      assert.equal(names.length, 6, names.join(", "));
      assert.ok(!names.includes("tools__search"));
    });

    test("control: an agent with no more tools than max_tools is shown all of them and no meta-tool", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "text", text: "done" });
      const { settled } = await runtime.submitRun({ agent: await agent({ max_tools: 6 }), task: "grep the files for milk" });
      await settled;
      assert.equal(offered(fake, first).length, 6);
    });

    test("always is shown in every Step whatever the task", async () => {
      const first = fake.requests.length;
      fake.reply({ type: "text", text: "done" });
      const { settled } = await runtime.submitRun({ agent: await agent({ max_tools: 2, always: ["files.write_file"] }), task: "grep the files for milk" });
      await settled;
      const names = offered(fake, first);
      assert.ok(names.includes(wire("files.write_file")), names.join(", "));
      assert.ok(names.includes(wire("files.grep")), names.join(", "));
    });

    test("a search never returns a tool the run does not have; a name outside it is an unknown tool", async () => {
      const first = fake.requests.length;
      fake.reply(
        { type: "tool_calls", calls: [{ name: "tools__search", arguments: { query: "write or edit a file", limit: 20 } }] },
        { type: "tool_calls", calls: [{ name: wire("files.write_file"), arguments: { path: "/docs/x", content: "x" } }] },
        { type: "text", text: "done" },
      );
      const { run, settled } = await runtime.submitRun({ agent: await agent({ max_tools: 1 }, ["read_file", "list_dir", "grep"]), task: "write a file" });
      await settled;
      const answer = JSON.stringify(fake.requests[first + 1]!.body);
      assert.match(answer, /files\.read_file|files\.list_dir|files\.grep/);
      assert.doesNotMatch(answer, /files\.write_file\\",|\\"name\\":\\"files\.(write|edit)_file/);
      const found = (await runtime.audit.query({ runId: run.id, kind: "tool_call", limit: 50 })).records;
      assert.ok(found.some((r) => r.tool === "files.write_file" && r.status === "denied"), "the ungranted name is refused as an unknown tool");
    });

    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ["no query", {}, /query: expected/],
      ["an empty query", { query: "  " }, /query: expected/],
      ["a limit past the cap", { query: "read", limit: 21 }, /limit: expected a whole number from 1 to 20/],
      ["an unknown field", { query: "read", grant: "everything" }, /grant: not an input of tools.search/],
    ];
    for (const [what, input, message] of bad) {
      test(`tools.search refuses ${what}, on record, and the model is told`, async () => {
        const first = fake.requests.length;
        fake.reply({ type: "tool_calls", calls: [{ name: "tools__search", arguments: input }] }, { type: "text", text: "ok" });
        const { run, settled } = await runtime.submitRun({ agent: await agent({ max_tools: 2 }), task: "read notes" });
        await settled;
        assert.match(JSON.stringify(fake.requests[first + 1]!.body), message);
        const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", status: "denied", limit: 10 });
        assert.ok(records.some((r) => r.tool === "tools.search"), "the refusal is on record");
      });
    }
  });
}

describe("tool_retrieval in the manifest", () => {
  const manifest = (retrieval: string) => `name: r1
description: d
model: { provider: anthropic, id: m }
system_prompt: s
plugins: [{ name: files, version: "*" }]
tool_retrieval: ${retrieval}
`;
  const cases: Array<[string, string, RegExp | null]> = [
    ["control: a valid block", "{ max_tools: 8, always: [files.read_file] }", null],
    ["max_tools 0", "{ max_tools: 0 }", /tool_retrieval\.max_tools/],
    ["max_tools missing", "{ always: [files.read_file] }", /tool_retrieval\.max_tools/],
    ["always not plugin.tool", "{ max_tools: 4, always: [read_file] }", /tool_retrieval\.always/],
    ["an unknown key", "{ max_tools: 4, show_all: true }", /tool_retrieval/],
  ];
  for (const [what, text, problem] of cases) {
    test(what, () => {
      const parse = () => parseAgentManifest(manifest(text), { file: "r1.yaml", baseDir: "/tmp" });
      if (problem === null) assert.doesNotThrow(parse);
      else assert.throws(parse, (error: Error) => problem.test(error.message));
    });
  }
});
