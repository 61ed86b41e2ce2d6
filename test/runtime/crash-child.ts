/**
 * Child of the crash test: a runtime on `argv[2]` (data dir) running tool calls under load,
 * printing one JSON line per outcome it received, until it is killed.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Runtime } from "../../runtime/index.js";
import { defineTestAgent, FILES_PLUGIN } from "../helpers/runtime.js";

const dataDir = process.argv[2];
if (!dataDir) process.exit(2);
const work = join(dataDir, "work");
await mkdir(work, { recursive: true });
const runtime = await Runtime.create({ dataDir, agentsDir: join(dataDir, "agents"), pluginDirs: [FILES_PLUGIN], sandbox: { poolSize: 0 } });
await defineTestAgent(runtime, "busy", { mounts: [{ guest: "/work", host: work, mode: "rw" }], plugins: ["files"], lowerToSafe: ["files.write_file"] });
await defineTestAgent(runtime, "careful", { mounts: [{ guest: "/work", host: work, mode: "rw" }], plugins: ["files"] });

const waiting = await runtime.startRun({ agent: "careful" });
const paused = await waiting.callTool("files.write_file", { path: "/work/approved-later.txt", content: "resumed" });
if (paused.status !== "approval_required") process.exit(3);
process.stdout.write(`${JSON.stringify({ type: "pending", runId: waiting.id, approvalId: paused.approval.id })}\n`);

const worker = async (n: number) => {
  const run = await runtime.startRun({ agent: "busy" });
  for (let i = 0; ; i++) {
    const outcome =
      i % 2 === 0
        ? await run.callTool("files.write_file", { path: `/work/w${n}-${i}.txt`, content: `${n}:${i}` })
        : await run.callTool("files.read_file", { path: `/work/w${n}-${i - 1}.txt` });
    process.stdout.write(`${JSON.stringify({ type: "outcome", runId: run.id, callId: outcome.id, status: outcome.status })}\n`);
  }
};
await Promise.all([1, 2, 3, 4].map(worker));
