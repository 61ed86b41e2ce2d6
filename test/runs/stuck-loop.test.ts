import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { Runtime } from "../../runtime/index.js";
import type { LlmProvider, LlmRequest, LlmResponse } from "../../runtime/llm/index.js";
import { openStore, StoreError } from "../../runtime/store/index.js";
import { FaultyStore } from "../helpers/faulty-store.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDataDir } from "../helpers/runtime.js";

/**
 * The model-driven loop, the restart path and a dead node's runs: each ends a run whose Step
 * failed in the runtime (failed, with the code), and none leaves one active with nothing
 * driving it.
 */
let dataDir: string;
let work: string;
let store: FaultyStore;
let runtime: Runtime;
let agent: string;

/** Asks for one write (the file the task names), then answers: the same for every run, whatever came before. */
const scripted: LlmProvider = {
  provider: "test",
  model: "scripted",
  complete: async (request: LlmRequest): Promise<LlmResponse> => {
    const last = request.messages.at(-1);
    const answered = last?.content.some((b) => b.type === "tool_result") === true;
    const task = request.messages.find((m) => m.role === "user")?.content.find((b) => b.type === "text");
    const file = task?.type === "text" ? task.text.replace(/^write /, "") : "none";
    const content: LlmResponse["content"] = answered ? [{ type: "text", text: "done" }] : [{ type: "tool_use", id: "tu_1", name: "files.write_file", input: { path: `/w/${file}`, content: file } }];
    return { content, usage: { input_tokens: 1, output_tokens: 1 }, stop_reason: answered ? "end_turn" : "tool_use", provider_stop_reason: null, model: "scripted", attempts: 1 };
  },
};

before(async () => {
  dataDir = await tempDataDir("clawhive-stuck-loop-");
  work = join(dataDir, "work");
  await mkdir(work);
  await mkdir(join(dataDir, "agents"));
  store = new FaultyStore(await openStore({ url: `file:${join(dataDir, "clawhive.db")}` }));
  runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], store, sandbox: { poolSize: 0 }, modelProvider: () => scripted });
  agent = await defineTestAgent(runtime, "looper", { plugins: ["files"], mounts: [{ guest: "/w", host: work, mode: "rw" }], lowerToSafe: ["files.write_file"] });
});
afterEach(() => store.clear());
after(async () => {
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function unended(): Promise<string[]> {
  return (await runtime.records.list({ limit: 1000 })).filter((r) => r.status !== "ended").map((r) => r.id);
}

test("a model-driven run with a store busy at any one statement is never left active", async () => {
  const start = store.count;
  const { run, settled } = await runtime.submitRun({ agent, task: "write reference.txt" });
  await settled;
  assert.equal((await runtime.records.get(run.id))?.endReason, "completed", "control: no fault, the run completes");
  assert.equal(existsSync(join(work, "reference.txt")), true);
  const statements = store.count - start;
  const seen = { completed: 0, failed: 0, refused: 0 };
  for (let n = 1; n <= statements; n++) {
    store.clear();
    store.fail({ kind: "busy", skip: n - 1, times: 1 });
    let id: string | undefined;
    try {
      const submitted = await runtime.submitRun({ agent, task: `write loop-${n}.txt` });
      id = submitted.run.id;
      await submitted.settled;
    } catch (error) {
      assert.ok(error instanceof StoreError && error.code === "store_busy", `statement ${n}: ${String(error)}`);
      seen.refused++;
    }
    store.clear();
    await runtime.idle();
    if (id !== undefined) {
      const record = (await runtime.records.get(id))!;
      assert.equal(record.status, "ended", `statement ${n}: the run is ended`);
      assert.equal(runtime.getRun(id), undefined, `statement ${n}: nothing is left running`);
      if (record.endReason === "failed") {
        assert.match(record.result ?? "", /store_busy|audit_write_failed/, `statement ${n}: ${record.result}`);
        seen.failed++;
      } else seen.completed++;
    }
    assert.deepEqual(await unended(), [], `statement ${n}: no run is left unended`);
  }
  assert.ok(seen.failed > 0 && seen.completed > 0, JSON.stringify(seen));
});

test("a run a dead node left active is taken over and driven to its end once its lease ran out; a live node's run is left alone", async () => {
  const now = runtime.clock.now();
  const base = { traceId: "t", taskId: "task", parentRunId: null, agent, plugins: ["files"], task: null, taskGrants: null, createdAt: now, plan: [{ name: "files.read_file", input: {} }] };
  await runtime.records.create({ ...base, id: "run_dead", node: "gone-node", leaseUntil: now - 60_000 });
  await runtime.records.create({ ...base, id: "run_alive", node: "live-node", leaseUntil: now + 60_000 });
  await runtime.driverTick();
  for (let i = 0; i < 400 && (await runtime.records.get("run_dead"))?.status !== "ended"; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  const dead = (await runtime.records.get("run_dead"))!;
  assert.equal(dead.status, "ended");
  assert.equal(dead.endReason, "completed", "continued here, not failed");
  assert.equal(dead.outcomes.length, 1, "its ToolCall ran here");
  assert.equal((await runtime.records.get("run_alive"))?.status, "active", "control: a held lease is honoured");
  await runtime.records.end("run_alive", null, now, "cancelled");
});

test("a run whose agent this node does not know ends failed (agent_unknown) instead of waiting for ever (control: known, it continues)", async () => {
  const own = await tempDataDir("clawhive-stuck-agent-");
  try {
    await mkdir(join(own, "agents"));
    const open = () => Runtime.create({ dataDir: own, agentsDir: join(own, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 } });
    const first = await open();
    const ids: string[] = [];
    for (const name of ["kept", "vanished"]) {
      await defineTestAgent(first, name, { plugins: ["files"], mounts: [{ guest: "/w", host: work, mode: "rw" }] });
      const { run, settled } = await first.submitRun({ agent: name, toolCalls: [{ name: "files.write_file", input: { path: `/w/${name}.txt`, content: name } }] });
      await settled;
      await first.approvals.decide(run.pending!.approvalId, { decision: "approve", by: "operator" });
      ids.push(run.id);
    }
    await first.close();
    const second = await open();
    try {
      // The new process knows only one of the two agents (the other was removed from its config).
      await defineTestAgent(second, "kept", { plugins: ["files"], mounts: [{ guest: "/w", host: work, mode: "rw" }] });
      assert.equal(await second.continueRun(ids[0]!), true);
      assert.equal((await second.records.get(ids[0]!))?.endReason, "completed");
      // Continued here, or already by this node's background tick: either way it ends, saying why.
      await second.continueRun(ids[1]!).then(
        (continued) => assert.equal(continued, false),
        (error: { code?: string }) => assert.equal(error.code, "agent_unknown"),
      );
      const record = (await second.records.get(ids[1]!))!;
      assert.equal(record.status, "ended");
      assert.equal(record.endReason, "failed");
      assert.match(record.result ?? "", /agent_unknown: run .* its agent vanished is not known to this runtime/);
      assert.equal(existsSync(join(work, "vanished.txt")), false);
      assert.equal((await second.approvals.list({ runId: ids[1]! }))[0]?.status, "withdrawn");
    } finally {
      await second.close();
    }
  } finally {
    await rm(own, { recursive: true, force: true });
  }
});
