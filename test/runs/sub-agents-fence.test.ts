/**
 * Starting a sub-agent run is an effect of its parent, fenced like a host call's: the spawn
 * intent is committed only while the parent is live, not cancelled and held by this node. Right
 * before the intent is committed (after every earlier check passed), another node takes the
 * parent over or a cancel is recorded: the spawn is refused, no intent is on record and no child
 * run is started. Control: nothing happens in between, and the child runs.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { spawnSubAgent } from "../../runtime/runs/sub-agents.js";
import { openStore } from "../../runtime/store/index.js";
import { FaultyStore } from "../helpers/faulty-store.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";

const HOUR = 3_600_000;

const BETWEEN: Array<{ what: string; act: (runtime: Runtime, runId: string) => Promise<void>; refused?: string }> = [
  { what: "control: nothing (the parent is still this node's)", act: async () => undefined },
  {
    what: "another node takes the parent over (this node's lease ran out)",
    act: async (runtime, runId) => {
      const now = Date.now() + HOUR;
      assert.equal(await runtime.records.claim(runId, "node_elsewhere_1_00000000", { now, until: now + HOUR }), true);
    },
    refused: "run_taken_over",
  },
  { what: "a cancel is recorded for the parent", act: async (runtime, runId) => void (await runtime.records.requestCancel(runId)), refused: "run_cancelled" },
];

describe("a sub-agent spawn is fenced by its parent's lease and cancel flag", () => {
  let runtime: Runtime;
  let store: FaultyStore;
  let dispose: () => Promise<void>;
  let work: string;

  before(async () => {
    work = await tempDir();
    const dir = await tempDir("clawhive-spawn-fence-");
    store = new FaultyStore(await openStore({ url: `file:${join(dir, "store.db")}` }));
    ({ runtime, dispose } = await testRuntime({ store, sandbox: { callTimeoutMs: 5_000 } }));
    const mount = { guest: "/work", host: work };
    const base = { model: { provider: "anthropic", id: "test-model" }, system_prompt: "test", plugins: [{ name: "files", version: "*" }] };
    await runtime.defineAgent({
      ...base,
      name: "fenced-child",
      description: "writes",
      grants: { log: {}, "fs.read": { mounts: [mount] }, "fs.write": { mounts: [{ ...mount, mode: "rw" }] } },
      approvals: { lower_risk: [{ tool: "files.write_file", to: "safe", acknowledged: true }] },
    });
    await runtime.defineAgent({ ...base, name: "fenced-lead", description: "delegates", grants: { log: {}, "agent.spawn": { agents: ["fenced-child"] } }, sub_agents: ["fenced-child"] });
  });
  after(async () => {
    await dispose();
    await rm(work, { recursive: true, force: true });
  });

  for (const c of BETWEEN) {
    it(`${c.what}: ${c.refused === undefined ? "the child runs" : `refused (${c.refused}), no child`}`, async () => {
      const parent = await runtime.startRun({ agent: "fenced-lead" });
      await runtime.audit.flush();
      // The next audit write is the spawn's intent: B acts right before it is committed.
      store.before((sql) => /^\s*INSERT INTO audit_records/.test(sql), () => c.act(runtime, parent.id));
      const spawning = spawnSubAgent(runtime, parent, { agent: "fenced-child", toolCalls: [{ name: "files.write_file", input: { path: `/work/${parent.id}.txt`, content: "x" } }] });
      if (c.refused === undefined) assert.equal((await spawning).status, "ended", "the child was started and ran");
      else await assert.rejects(spawning, { code: c.refused });
      const children = (await runtime.records.list({ limit: 100 })).filter((r) => r.parentRunId === parent.id);
      const intents = (await runtime.audit.query({ runId: parent.id, kind: "tool_call", status: "intent", limit: 100 })).records.filter((r) => r.tool === "subagent_fenced-child");
      assert.equal(children.length, c.refused === undefined ? 1 : 0, "child runs started");
      assert.equal(intents.length, c.refused === undefined ? 1 : 0, "spawn intents on record");
      if (c.refused === undefined) assert.equal(children[0]?.endReason, "completed");
      store.clear();
    });
  }
});
