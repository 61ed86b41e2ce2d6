/**
 * A run whose first call comes later (an MCP session, a model-driven run) readies its plugins
 * while the workers idle: the instance its first call binds was created before the call, not on
 * its path. Control: a plugin nobody prepared is instantiated during its first call.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { McpSession } from "../../runtime/mcp/index.js";
import type { SandboxEvent } from "../../runtime/sandbox/index.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";
import { startFakeAnthropic } from "../helpers/fake-llm/index.js";
import { defineLoopAgent, LLM_SECRET, sent, until, wire } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
const created: Array<Extract<SandboxEvent, { type: "instance-created" }>> = [];

before(async () => {
  // A pool of one per plugin (the default), and nothing loaded until a run needs it.
  ({ runtime, dispose } = await testRuntime());
  runtime.sandbox.observe((event) => {
    if (event.type === "instance-created") created.push(event);
  });
  const work = await tempDir();
  await defineTestAgent(runtime, "filer", { mounts: [{ guest: "/w", host: work }], plugins: ["files"] });
  await defineTestAgent(runtime, "prober", { plugins: ["probe"] });
});
after(() => dispose());

/** The instances created while `work` ran, by plugin: cold ones are on the call's path. */
async function createdDuring(work: () => Promise<unknown>): Promise<Array<{ plugin: string; warm: boolean }>> {
  const from = created.length;
  await work();
  return created.slice(from).map((e) => ({ plugin: e.plugin, warm: e.warm }));
}

test("an MCP session readies its agent's plugins before the client's first call; that call creates no instance on its path", async () => {
  const session = await McpSession.open(runtime, { agent: "filer", version: "test", mayApprove: false, decidedBy: "test", watchMs: 0 });
  try {
    await until(() => runtime.sandbox.stats().pooled > 0, "a pooled instance of files");
    const during = await createdDuring(() => session.run.callTool("files.list_dir", { path: "/w" }));
    // The pool refills behind the call (warm), never a cold instance for it.
    assert.deepEqual(during.filter((e) => !e.warm), [], JSON.stringify(during));
  } finally {
    await session.close();
  }
});

test("control: the first call of a plugin nobody prepared instantiates it on its path", async () => {
  const run = await runtime.startRun({ agent: "prober" });
  const during = await createdDuring(() => run.callTool("probe.echo", {}));
  assert.ok(during.some((e) => e.plugin === "probe" && !e.warm), JSON.stringify(during));
  await run.end();
});

describe("a model-driven run", () => {
  let own: Runtime;
  let ownDispose: () => Promise<void>;
  let fake: Awaited<ReturnType<typeof startFakeAnthropic>>;
  const seen: Array<Extract<SandboxEvent, { type: "instance-created" }>> = [];
  before(async () => {
    // Its own runtime: nothing of the files plugin is pooled before the run asks for it.
    ({ runtime: own, dispose: ownDispose } = await testRuntime());
    own.sandbox.observe((event) => {
      if (event.type === "instance-created") seen.push(event);
    });
    await own.setSecret(LLM_SECRET, "test-key");
    fake = await startFakeAnthropic();
  });
  after(async () => {
    await fake.close();
    await ownDispose();
  });

  test("readies its plugins while the model answers the first Step; its first call creates no instance on its path", async () => {
    const work = await tempDir();
    await writeFile(join(work, "note.md"), "a note\n");
    const agent = await defineLoopAgent(own, "model-filer", { provider: "anthropic", baseUrl: fake.baseUrl, mounts: [{ guest: "/w", host: work }] });
    let from = 0;
    // The model's first answer is held until the run's files instance is ready, unbound.
    const ready = until(() => own.sandbox.stats().pooled > 0, "a pooled instance of files").then(() => {
      from = seen.length;
    });
    fake.reply(
      { type: "tool_calls", text: "Reading it.", calls: [{ name: wire("files.read_file"), arguments: { path: "/w/note.md" } }], hold: ready },
      { type: "text", text: "It says: a note." },
    );
    const { run, settled } = await own.submitRun({ agent, task: "Read /w/note.md." });
    await settled;
    assert.equal((await own.records.get(run.id))!.status, "ended");
    assert.match(sent(fake, fake.requests.length - 1), /a note/, "the file reached the model");
    const during = seen.slice(from).map((e) => ({ plugin: e.plugin, warm: e.warm }));
    assert.deepEqual(during.filter((e) => !e.warm), [], JSON.stringify(during));
  });
});
