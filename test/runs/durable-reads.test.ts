/**
 * Durability at the boundary where data leaves (docs/security.md): a read's records are
 * committed off the guest's path, and the ToolCall's result reaches its caller only once every
 * record of it is durable. A real commit failure (a trigger refusing the records, as a full disk
 * would) withholds the result — however the ToolCall ended — from the runtime's callTool, the
 * HTTP API and the run loop's model; an effect's intent still precedes the effect. Each refusal
 * has its control: the same call on a healthy store. (MCP and the CLI: test/cli/durable-reads.)
 */
import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime, RunEvent } from "../../runtime/index.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";
import { hostIntent, hostOutcome, refuseAuditRecords } from "../helpers/audit-faults.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";
import { defineLoopAgent, LLM_SECRET, PROVIDERS, sent, wire } from "./_loop.js";

const MARK = "PERSIMMON-5521-secret-notes";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;
let server: Listening;
let token: string;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 } }));
  work = await tempDir();
  await writeFile(join(work, "note.md"), `note: ${MARK}\n`);
  await defineTestAgent(runtime, "reader", {
    mounts: [{ guest: "/w", host: work, mode: "rw" }],
    lowerToSafe: ["files.write_file", "files.edit_file"],
  });
  await defineTestAgent(runtime, "asker", { mounts: [{ guest: "/w", host: work, mode: "rw" }], raise: [{ tool: "files.edit_file", to: "unsafe" }] });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token = (await tokens.create("client")).token;
  server = await listen(createApp({ runtime, tokens, version: "test" }));
});

after(async () => {
  await server.close();
  await dispose();
  await rm(work, { recursive: true, force: true });
});

/** Runs `body` with the records matching `where` refused, then lifts the refusal. */
async function refusing<T>(where: string, body: () => Promise<T>): Promise<T> {
  const lift = await refuseAuditRecords(runtime.store, where);
  try {
    return await body();
  } finally {
    await lift();
  }
}

const readRefusals = [
  { what: "a read's outcome", where: hostOutcome("fs", "read") },
  { what: "a read's intent", where: hostIntent("fs", "read") },
];

// Every way a ToolCall that read can end; `control` is what the same call gives on a healthy store.
const endings: Array<{ name: string; tool: string; input: Record<string, unknown>; timeoutMs?: number; control: (outcome: any) => void }> = [
  { name: "a result", tool: "files.read_file", input: { path: "/w/note.md" }, control: (o) => assert.match(JSON.stringify(o.output), new RegExp(MARK)) },
  { name: "a tool error that carries what was read", tool: "probe.readthen", input: { path: "/w/note.md", then: "fail" }, control: (o) => assert.match(o.error.message, new RegExp(MARK)) },
  { name: "a trap", tool: "probe.readthen", input: { path: "/w/note.md", then: "trap" }, control: (o) => assert.equal(o.error.kind, "trapped") },
  { name: "a deadline", tool: "probe.readthen", input: { path: "/w/note.md", then: "loop" }, timeoutMs: 300, control: (o) => assert.equal(o.error.kind, "deadline") },
];

describe("run.callTool: a ToolCall that read is released only once its records are durable", () => {
  for (const refusal of readRefusals) {
    for (const ending of endings) {
      test(`${refusal.what} refused, ending in ${ending.name}: withheld (audit-failed); control: released`, async () => {
        const run = await runtime.startRun({ agent: "reader" });
        const options = ending.timeoutMs === undefined ? {} : { timeoutMs: ending.timeoutMs };
        const outcome: any = await refusing(refusal.where, () => run.callTool(ending.tool, ending.input, options));
        assert.equal(outcome.status, "error", JSON.stringify(outcome));
        assert.equal(outcome.error.kind, "audit-failed", JSON.stringify(outcome));
        assert.doesNotMatch(JSON.stringify(outcome), new RegExp(MARK));
        const healthy: any = await run.callTool(ending.tool, ending.input, options);
        ending.control(healthy);
        await run.end();
      });
    }
  }

  test("a cancel while the guest runs after a read: withheld; control: stopped as a cancel", async () => {
    const stopAfterRead = async (run: Awaited<ReturnType<Runtime["startRun"]>>) => {
      const read = new Promise<void>((resolve) => run.onEvent((e: RunEvent) => e.type === "host-call" && resolve()));
      const calling = run.callTool("probe.readthen", { path: "/w/note.md", then: "loop" });
      await read;
      await run.abortToolCalls("the caller withdrew the call");
      return (await calling) as any;
    };
    const run = await runtime.startRun({ agent: "reader" });
    const outcome = await refusing(hostOutcome("fs", "read"), () => stopAfterRead(run));
    assert.equal(outcome.error.kind, "audit-failed", JSON.stringify(outcome));
    const control = await stopAfterRead(run);
    assert.notEqual(control.error.kind, "audit-failed", JSON.stringify(control));
    await run.end();
  });

  test("a read before an effect needing approval: withheld, not paused; control: the run pauses for the approval", async () => {
    await writeFile(join(work, "ask.md"), "before\n");
    const input = { path: "/w/ask.md", old_text: "before", new_text: "after" };
    const run = await runtime.startRun({ agent: "asker" });
    const outcome: any = await refusing(hostOutcome("fs", "read"), () => run.callTool("files.edit_file", input));
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    assert.equal(outcome.error.kind, "audit-failed");
    const control: any = await (await runtime.startRun({ agent: "asker" })).callTool("files.edit_file", input);
    assert.equal(control.status, "approval_required", JSON.stringify(control));
    await run.end();
  });
});

describe("an effect's intent precedes the effect", () => {
  test("an edit whose read could not be recorded writes nothing: the write's intent commit carries the read's records; control: edited, in chain order", async () => {
    await writeFile(join(work, "edit.md"), "old text\n");
    const run = await runtime.startRun({ agent: "reader" });
    const input = { path: "/w/edit.md", old_text: "old text", new_text: "new text" };
    const outcome: any = await refusing(hostOutcome("fs", "read"), () => run.callTool("files.edit_file", input));
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    assert.equal(await readFile(join(work, "edit.md"), "utf8"), "old text\n");
    const control: any = await run.callTool("files.edit_file", input);
    assert.equal(control.status, "ok", JSON.stringify(control));
    assert.equal(await readFile(join(work, "edit.md"), "utf8"), "new text\n");
    const records = (await runtime.audit.query({ runId: run.id, limit: 1000 })).records.filter((r) => r.toolCall?.id === control.id && r.kind === "host_call");
    const at = (fn: string, status: string) => records.find((r) => r.hostCall?.function === fn && (status === "intent" ? r.status === "intent" : r.status !== "intent"))!.seq;
    assert.ok(at("read", "intent") < at("read", "outcome") && at("read", "outcome") < at("write", "intent"), JSON.stringify(records.map((r) => [r.seq, r.hostCall?.function, r.status])));
    await run.end();
  });

  test("a write whose ToolCall's intent cannot be committed does not happen; control: written", async () => {
    const run = await runtime.startRun({ agent: "reader" });
    const input = { path: "/w/unrecorded.md", content: "x\n" };
    const outcome: any = await refusing("kind = 'tool_call' AND status = 'intent'", () => run.callTool("files.write_file", input));
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    await assert.rejects(readFile(join(work, "unrecorded.md")), { code: "ENOENT" });
    assert.equal((await run.callTool("files.write_file", input)).status, "ok");
    assert.equal(await readFile(join(work, "unrecorded.md"), "utf8"), "x\n");
    await run.end();
  });

  test("a write whose intent cannot be committed does not happen; control: written", async () => {
    const run = await runtime.startRun({ agent: "reader" });
    const input = { path: "/w/never.md", content: "x\n" };
    const outcome: any = await refusing(hostIntent("fs", "write"), () => run.callTool("files.write_file", input));
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    await assert.rejects(readFile(join(work, "never.md")), { code: "ENOENT" });
    assert.equal((await run.callTool("files.write_file", input)).status, "ok");
    assert.equal(await readFile(join(work, "never.md"), "utf8"), "x\n");
    await run.end();
  });
});

test("POST /v1/runs?wait=true: a read that could not be recorded answers audit-failed without the content; control: the content", async () => {
  const body = { agent: "reader", tool_calls: [{ name: "files.read_file", input: { path: "/w/note.md" } }] };
  const refused = await refusing(hostOutcome("fs", "read"), () => jsonCall(server.base, "POST", "/v1/runs?wait=true", { token, body }));
  assert.equal(refused.status, 201, JSON.stringify(refused.body));
  assert.deepEqual([refused.body.run.status, refused.body.run.end_reason], ["ended", "failed"]);
  assert.equal(refused.body.run.outcomes[0].error.kind, "audit-failed");
  assert.doesNotMatch(JSON.stringify(refused.body), new RegExp(MARK));
  const healthy = await jsonCall(server.base, "POST", "/v1/runs?wait=true", { token, body });
  assert.match(JSON.stringify(healthy.body.run.outcomes[0].output), new RegExp(MARK));
});

const { provider, start } = PROVIDERS[0]!;
test(`the run loop (${provider}): the model never sees a read that could not be recorded, and the run ends failed; control: it sees it`, async () => {
  await runtime.setSecret(LLM_SECRET, "test-key");
  const fake = await start();
  try {
    const agent = await defineLoopAgent(runtime, "looper", { provider, baseUrl: fake.baseUrl, mounts: [{ guest: "/w", host: work }] });
    const ask = async (answers: boolean) => {
      const first = fake.requests.length;
      fake.reply({ type: "tool_calls", calls: [{ name: wire("files.read_file"), arguments: { path: "/w/note.md" } }] }, ...(answers ? [{ type: "text" as const, text: "Read." }] : []));
      const { run, settled } = await runtime.submitRun({ agent, task: "Read the note." });
      await settled;
      const record = await runtime.records.get(run.id);
      return { asked: fake.requests.slice(first).map((_, i) => sent(fake, first + i)), end: record?.endReason, result: JSON.stringify(record?.result ?? null) };
    };
    // The run stops failed (audit_write_failed) rather than go on unaudited: no later request
    // brings the model anything of the read.
    const refused = await refusing(hostOutcome("fs", "read"), () => ask(false));
    assert.equal(refused.end, "failed");
    assert.equal(refused.asked.length, 1);
    assert.doesNotMatch(refused.asked.join("\n") + refused.result, new RegExp(MARK));
    const healthy = await ask(true);
    assert.equal(healthy.end, "completed");
    assert.match(healthy.asked[1] ?? "", new RegExp(MARK));
  } finally {
    await fake.close();
  }
});
