/**
 * A ToolCall's input is checked on the host before any guest sees it, and each refusal is one
 * audit record; a guest's hostile result is a tool error and the run goes on. Every refusal is
 * beside a control that passes.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import type { Runtime, ToolCallOutcome } from "../../runtime/index.js";
import { extismModulePackage } from "../helpers/extism-modules.js";
import type { ExtismPackage } from "../helpers/extism-probe.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDir, testRuntime } from "../helpers/runtime.js";
import { defineLoopAgent, LLM_SECRET, PROVIDERS, sent, wire, type Fake } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let deepPkg: ExtismPackage;
let n = 0;

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const deepValue = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const cyclic: Record<string, unknown> = { path: "/work/a" };
cyclic.again = cyclic;

before(async () => {
  // A real guest answering with a 40 KB result nested 20,000 deep.
  const envelope = JSON.stringify({ content: [{ type: "text", text: nested(20_000) }] });
  deepPkg = await extismModulePackage("deep-answer", { data: [[4096, envelope]], body: `(call $out (i32.const 4096) (i32.const ${envelope.length})) (return (i32.const 0))` });
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN, deepPkg.dir], sandbox: { callTimeoutMs: 20_000 } }));
  await runtime.setSecret(LLM_SECRET, "test-key");
  work = await tempDir();
});
after(async () => {
  await dispose?.();
  await rm(work, { recursive: true, force: true });
  await rm(deepPkg.dir, { recursive: true, force: true });
});

const agent = () => defineTestAgent(runtime, `input-${++n}`, { mounts: [{ guest: "/work", host: work, mode: "ro" }], plugins: ["files", "probe", "deep-answer"] });

const refusals: Array<[string, string, unknown, string | undefined, string]> = [
  // [case, tool, input, expected reason (undefined: the call runs), kind]
  ["control: a plain object", "probe.echo", { text: "hi", list: [1, 2] }, undefined, "ok"],
  ["20,000 deep", "probe.echo", deepValue(20_000), "too-deep", "invalid-input"],
  ["control: 63 deep", "probe.echo", deepValue(63), undefined, "ok"],
  ["wide: 300,000 values", "probe.echo", { list: Array(300_000).fill(0) }, "too-many-values", "invalid-input"],
  ["huge: a 5 MB string", "probe.echo", { text: "x".repeat(5 << 20) }, "too-long", "invalid-input"],
  ["a __proto__ key (as JSON.parse makes it)", "probe.echo", JSON.parse('{"a":{"__proto__":{"polluted":true}}}'), "forbidden-key", "invalid-input"],
  ["a constructor key", "probe.echo", { constructor: { prototype: {} } }, "forbidden-key", "invalid-input"],
  ["a cycle", "probe.echo", cyclic, "cycle", "invalid-input"],
  ["an array, not an object", "probe.echo", [1, 2], "not-an-object", "invalid-input"],
  ["a string, not an object", "probe.echo", "hello", "not-an-object", "invalid-input"],
  ["control: valid against the schema", "files.read_file", { path: "/work/missing.txt" }, undefined, "not-ok"],
  ["missing a required field", "files.read_file", {}, "schema-mismatch", "invalid-input"],
  ["a field of the wrong type", "files.read_file", { path: 42 }, "schema-mismatch", "invalid-input"],
];

describe("a ToolCall's input is refused on the host, audited, before any guest sees it", () => {
  for (const [name, tool, input, reason, kind] of refusals) {
    test(name, async () => {
      const run = await runtime.startRun({ agent: await agent() });
      const outcome = await run.callTool(tool, input);
      await runtime.audit.flush();
      const records = (await runtime.audit.query({ runId: run.id, kind: "tool_call", order: "asc" })).records;
      if (reason === undefined) {
        if (kind === "ok") assert.equal(outcome.status, "ok", JSON.stringify(outcome).slice(0, 300));
        // The guest ran: its own answer (a missing file) came back, not a refusal.
        else assert.notEqual((outcome as Extract<ToolCallOutcome, { status: "error" }>).error?.kind, "invalid-input");
        assert.ok(records.every((r) => r.denial?.capability !== "tool-input"));
      } else {
        assert.equal(outcome.status, "error");
        const error = (outcome as Extract<ToolCallOutcome, { status: "error" }>).error;
        assert.equal(error.kind, kind);
        assert.equal(error.denial?.reason, reason);
        assert.ok(error.message.startsWith("input"), error.message);
        assert.ok(error.message.length < 400);
        // One record: the denial, with the input (or its summary when it cannot be written).
        assert.equal(records.length, 1, JSON.stringify(records.map((r) => r.status)));
        assert.equal(records[0]!.status, "denied");
        assert.equal(records[0]!.denial?.reason, reason);
        assert.ok((records[0]!.args ?? "").length < 20_000);
        // No instance was bound for it.
        assert.ok(!run.events.some((e) => e.type === "instance"));
      }
      await run.end();
    });
  }
});

test("schema errors name the path and the message from the validator", async () => {
  const run = await runtime.startRun({ agent: await agent() });
  const outcome = await run.callTool("files.read_file", { path: 42 });
  assert.equal((outcome as Extract<ToolCallOutcome, { status: "error" }>).error.message, "input.path: must be string");
  await run.end();
});

test("a guest's 20,000-deep result is a tool error; the instance is released; the run goes on and ends", async () => {
  // Instances in use: a pool of unbound ones is kept ahead of demand.
  const inUse = () => runtime.sandbox.stats().instances - runtime.sandbox.stats().pooled;
  const instancesBefore = inUse();
  const run = await runtime.startRun({ agent: await agent() });
  const outcome = await run.callTool("deep-answer.run", {});
  assert.equal(outcome.status, "error");
  const error = (outcome as Extract<ToolCallOutcome, { status: "error" }>).error;
  assert.equal(error.kind, "result-too-deep");
  assert.match(error.message, /nested more than 128 levels deep/);
  // The run is not stuck: the next call runs, on a fresh instance.
  assert.equal((await run.callTool("probe.echo", { after: true })).status, "ok");
  await runtime.audit.flush();
  const records = (await runtime.audit.query({ runId: run.id, kind: "tool_call", order: "asc" })).records;
  assert.equal(records.find((r) => r.tool === "deep-answer.run" && r.status === "error")?.error?.code, "result-too-deep");
  await run.end();
  assert.equal(run.status, "ended");
  // The pool refills in the background: wait for it to settle before counting.
  for (let i = 0; i < 400 && inUse() !== instancesBefore; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(inUse(), instancesBefore, "the run's instances are all released");
});

for (const { provider, start } of PROVIDERS) {
  describe(`the model sees refusals and hostile results as tool errors (${provider})`, () => {
    let fake: Fake;
    before(async () => {
      fake = await start();
    });
    after(() => fake.close());

    test("deep arguments, a __proto__ key and a deep result: the run continues and completes", async () => {
      const name = await defineLoopAgent(runtime, `loop-json-${provider}-${++n}`, { provider, baseUrl: fake.baseUrl, plugins: ["probe", "deep-answer"] });
      const first = fake.requests.length;
      fake.reply(
        { type: "tool_calls", calls: [{ name: wire("probe.echo"), arguments: `{"a":${nested(20_000)}}` }] },
        { type: "tool_calls", calls: [{ name: wire("probe.echo"), arguments: '{"__proto__":{"admin":true}}' }] },
        { type: "tool_calls", calls: [{ name: wire("deep-answer.run"), arguments: {} }] },
        { type: "tool_calls", calls: [{ name: wire("probe.echo"), arguments: { fine: 1 } }] },
        { type: "text", text: "done" },
      );
      const { run, settled } = await runtime.submitRun({ agent: name, task: "try hostile JSON" });
      await settled;
      const record = (await runtime.records.get(run.id))!;
      assert.equal(record.status, "ended");
      assert.equal(record.endReason, "completed");
      assert.match(sent(fake, first + 1), /nested more than 64 levels deep/);
      assert.match(sent(fake, first + 2), /__proto__/);
      assert.match(sent(fake, first + 2), /forbidden|not allowed/);
      assert.match(sent(fake, first + 3), /result-too-deep|nested more than 128 levels deep/);
      assert.match(sent(fake, first + 4), /fine/);
      await runtime.audit.flush();
      const denials = (await runtime.audit.query({ runId: run.id, kind: "tool_call", status: "denied", order: "asc" })).records;
      // Both refusals before a ToolCall started are on record, one denial each.
      assert.deepEqual(denials.map((r) => [r.tool, r.denial?.capability, r.denial?.reason]), [
        ["probe.echo", "tool-input", "malformed-input"],
        ["probe.echo", "tool-input", "forbidden-key"],
      ]);
      assert.match(denials[0]!.denial!.message, /nested more than 64 levels deep/);
      assert.ok((denials[0]!.args ?? "").length < 200, "the refused text is summarised, not stored");
    });
  });
}
