import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Runtime } from "../../runtime/index.js";
import { defineTestAgent, FILES_PLUGIN } from "../helpers/runtime.js";

const CHILD = fileURLToPath(new URL("./crash-child.js", import.meta.url));

interface Line {
  type: "pending" | "outcome";
  runId: string;
  callId?: string;
  approvalId?: string;
}

/** Starts the child and resolves with its lines once it has reported `outcomes` results. */
function runUntil(dataDir: string, outcomes: number): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dataDir], { stdio: ["ignore", "pipe", "pipe"] });
    const lines: Line[] = [];
    let buffer = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the child reported ${lines.length} lines in 60 s: ${stderr}`));
    }, 60_000);
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      buffer += d.toString();
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      for (const part of parts) if (part) lines.push(JSON.parse(part) as Line);
      if (lines.filter((l) => l.type === "outcome").length >= outcomes && child.exitCode === null) {
        // Killed mid-flight: calls are running in four runs at this moment.
        child.kill("SIGKILL");
      }
    });
    child.on("exit", () => {
      clearTimeout(timer);
      resolve(lines);
    });
  });
}

test("a runtime killed with SIGKILL under load loses no record of a call its client saw", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-crash-"));
  await mkdir(join(dataDir, "agents"));
  try {
    const lines = await runUntil(dataDir, 200);
    const pending = lines.find((l) => l.type === "pending");
    const outcomes = lines.filter((l) => l.type === "outcome");
    assert.ok(pending && outcomes.length >= 200);

    const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [FILES_PLUGIN], sandbox: { poolSize: 0 } });
    try {
      const verify = await runtime.audit.verify();
      assert.deepEqual(verify.issues, [], "the chain is intact");
      // Every ToolCall whose result the client received has its intent and its outcome.
      const { records } = await runtime.audit.query({ kind: "tool_call", limit: 1000 });
      for (const seen of outcomes) {
        const mine = records.filter((r) => r.runId === seen.runId && r.toolCall?.id === seen.callId);
        assert.deepEqual(mine.map((r) => r.status).sort(), ["intent", "ok"], `${seen.runId} ${seen.callId}`);
      }
      // The approval the killed process was waiting on is still pending, and still resumable.
      const approval = await runtime.approvals.get(pending.approvalId!);
      assert.equal(approval?.status, "pending");
      await defineTestAgent(runtime, "careful", { mounts: [{ guest: "/work", host: join(dataDir, "work"), mode: "rw" }], plugins: ["files"] });
      await runtime.approvals.decide(pending.approvalId!, { decision: "approve", by: "operator" });
      const run = await runtime.resumeRun(pending.runId);
      assert.equal((await run.resume())?.status, "ok");
      assert.equal(await readFile(join(dataDir, "work", "approved-later.txt"), "utf8"), "resumed");
      await run.end();
    } finally {
      await runtime.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
