import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Runtime } from "../../runtime/index.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";

test("a run waiting for approval survives a restart and resumes in the new process state", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-restart-"));
  await writeTestSecretKey(dataDir);
  const agentsDir = join(dataDir, "agents");
  const work = join(dataDir, "work");
  await mkdir(agentsDir);
  await mkdir(work);
  const open = () => Runtime.create({ dataDir, agentsDir, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 } });
  try {
    const first = await open();
    await defineTestAgent(first, "keeper", { mounts: [{ guest: "/work", host: work, mode: "rw" }] });
    const run = await first.startRun({ agent: "keeper" });
    const outcome = await run.callTool("files.write_file", { path: "/work/later.txt", content: "after restart" });
    assert.equal(outcome.status, "approval_required");
    const approvalId = (outcome as { approval: { id: string } }).approval.id;
    await first.close();

    const second = await open();
    try {
      // The agent was defined in code: the new process defines it again, as its config would.
      await defineTestAgent(second, "keeper", { mounts: [{ guest: "/work", host: work, mode: "rw" }] });
      const pending = await second.approvals.list({ status: "pending" });
      assert.deepEqual(pending.map((a) => a.id), [approvalId]);
      await second.approvals.decide(approvalId, { decision: "approve", by: "operator" });
      const resumed = await second.resumeRun(run.id);
      assert.equal(resumed.status, "awaiting_approval");
      const replay = await resumed.resume();
      assert.equal(replay?.status, "ok", JSON.stringify(replay));
      assert.equal(await readFile(join(work, "later.txt"), "utf8"), "after restart");
      await resumed.end();
      assert.equal((await second.records.get(run.id))?.status, "ended");
      assert.equal((await second.audit.verify()).ok, true);
    } finally {
      await second.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
