/**
 * A firing runs on whichever node claims it. Node A and node B share one libSQL server but not a
 * data dir; the agent is stored (in the store, so both have it) with a relative mount, which each
 * node resolves against its own data dir. A schedule made on A, fired on B after A is gone, runs
 * with B's folders and succeeds; control: a schedule A fires itself succeeds on A's folders. A
 * narrowed grant (a sub-folder of the mount) is carried over the same way.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Runtime } from "../../runtime/index.js";
import { openRuntimeScheduler } from "../../runtime/schedules/index.js";
import { FILES_PLUGIN, PROBE_PLUGIN, tempDir } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";

const SCRIBE = `name: scribe
description: Writes notes in its workspace.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  fs.write:
    mounts: [{ guest: /workspace, host: ./workspace, mode: rw }]
  log: {}
approvals:
  lower_risk: [{ tool: files.write_file, to: safe, acknowledged: true }]
`;

describe("a schedule made on one node fires on another whose data dir differs", needsSqld(), () => {
  let sqld: SqldServer;
  let root: string;
  let t = Date.parse("2026-03-01T10:00:00Z");
  const clock = { now: () => t };
  before(async () => {
    sqld = await startSqld({ auth: true });
    root = await tempDir("clawhive-sched-nodes-");
  });
  after(async () => {
    await sqld?.stop();
    await rm(root, { recursive: true, force: true });
  });

  async function node(name: string): Promise<{ runtime: Runtime; dataDir: string }> {
    const dataDir = join(root, name);
    await writeTestSecretKey(dataDir);
    const runtime = await Runtime.create({
      dataDir,
      agentsDir: join(root, `agents-${name}`),
      storeUrl: sqld.url,
      ...(sqld.authToken === undefined ? {} : { storeAuthToken: sqld.authToken }),
      pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN],
      sandbox: { poolSize: 0 },
      clock,
    });
    return { runtime, dataDir };
  }

  const write = (file: string) => [{ name: "files.write_file", input: { path: `/workspace/notes/${file}`, content: file } }];

  it("fires on B with B's folders; control: fired on A, with A's", async () => {
    const a = await node("a");
    // Stored, so every node has it; its mount is relative, so each node's is its own data dir's.
    await a.runtime.agentStore.put("scribe", SCRIBE, { format: "yaml", dataDir: a.dataDir });
    await a.runtime.refreshAgents();
    const onA = await openRuntimeScheduler(a.runtime);
    const narrow = (dataDir: string) => ({
      "fs.read": { mounts: [{ guest: "/workspace/notes", host: join(dataDir, "workspace", "notes") }] },
      "fs.write": { mounts: [{ guest: "/workspace/notes", host: join(dataDir, "workspace", "notes"), mode: "rw" }] },
    });
    const here = await onA.create({ agent: "scribe", task: "write", toolCalls: write("here.txt"), at: t + 60_000 });
    const whole = await onA.create({ agent: "scribe", task: "write", toolCalls: write("whole.txt"), at: t + 120_000 });
    const narrowed = await onA.create({ agent: "scribe", task: "write", toolCalls: write("narrow.txt"), grants: narrow(a.dataDir), at: t + 120_000 });
    t += 60_000;
    await onA.tick();
    const [ownFiring] = await onA.firings(here.id);
    assert.equal(ownFiring?.status, "started", JSON.stringify(ownFiring));
    await until(async () => (await a.runtime.records.get(ownFiring!.runId!))?.status === "ended");
    assert.equal(await readFile(join(a.dataDir, "workspace", "notes", "here.txt"), "utf8"), "here.txt");
    await onA.stop();
    await a.runtime.close();

    t += 60_000;
    const b = await node("b");
    // The narrowed mount's folder, as on A: a mount's host must exist where the run runs.
    await mkdir(join(b.dataDir, "workspace", "notes"), { recursive: true });
    try {
      const onB = await openRuntimeScheduler(b.runtime);
      await onB.tick();
      for (const [schedule, file] of [[whole, "whole.txt"], [narrowed, "narrow.txt"]] as const) {
        const [firing] = await onB.firings(schedule.id);
        assert.equal(firing?.status, "started", JSON.stringify(firing));
        await until(async () => (await b.runtime.records.get(firing!.runId!))?.status === "ended");
        const record = (await b.runtime.records.get(firing!.runId!))!;
        assert.equal(record.endReason, "completed", record.result ?? "");
        assert.equal(await readFile(join(b.dataDir, "workspace", "notes", file), "utf8"), file, `${file} written in B's data dir`);
        assert.doesNotMatch(JSON.stringify(record.taskGrants), new RegExp(`${a.dataDir}/`), "the run's grant names B's folders, not A's");
      }
      await onB.stop();
    } finally {
      await b.runtime.close();
    }
  });
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("timed out waiting for the run to end");
}
