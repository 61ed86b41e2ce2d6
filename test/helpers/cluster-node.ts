/**
 * One runtime node as its own process, for the multi-node chaos test and the takeover bench.
 * Usage: node cluster-node.js STORE_URL DATA_DIR NAME MODE [COUNT]
 * (the store's token in CLAWHIVE_STORE_AUTH_TOKEN). MODE `load` submits COUNT runs (model-driven
 * and explicit ToolCalls, each writing its own file) and prints each acknowledged run as a JSON
 * line; `hang` submits one model-driven run whose second model call never returns; `idle` only
 * drives what it takes over and fires schedules. Every node defines the same agent, so any node
 * can continue any run.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Runtime } from "../../runtime/index.js";
import type { LlmProvider, LlmResponse } from "../../runtime/llm/index.js";
import { respond } from "./scripted-response.js";
import { FILES_PLUGIN } from "./runtime.js";

const [url = "", dataDir = "", name = "node", mode = "idle", count = "0"] = process.argv.slice(2);
const print = (line: object) => process.stdout.write(`${JSON.stringify({ node: name, ...line })}\n`);
const work = join(dataDir, "work");
await mkdir(work, { recursive: true });
await mkdir(join(dataDir, `agents-${name}`), { recursive: true });
// The agent is a manifest file, loaded when the runtime is created: this node's driver and
// scheduler may continue or fire another node's run at once, before any later definition.
const manifest = {
  name: "writer",
  description: "writes the file its task names",
  model: { provider: "anthropic", id: "scripted" },
  system_prompt: "write",
  plugins: [{ name: "files", version: "*" }],
  grants: { log: {}, "fs.read": { mounts: [{ guest: "/w", host: work }] }, "fs.write": { mounts: [{ guest: "/w", host: work, mode: "rw" }] } },
  approvals: { lower_risk: [{ tool: "files.write_file", to: "safe", acknowledged: true }] },
};
await writeFile(join(dataDir, `agents-${name}`, "writer.yaml"), JSON.stringify(manifest, null, 2));


/** "write F": asks for one write of /w/F, then answers. A short think time lets kills land mid-run. */
const model: LlmProvider = {
  provider: "test",
  model: "scripted",
  complete: async (request, options) => {
    print({ asked: request.messages.length });
    const answered = request.messages.at(-1)?.content.some((b) => b.type === "tool_result") === true;
    if (answered && mode === "hang") return new Promise<LlmResponse>(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 150));
    options?.signal?.throwIfAborted();
    if (answered) return respond([{ type: "text", text: "done" }]);
    const task = request.messages.find((m) => m.role === "user")?.content.find((b) => b.type === "text");
    const file = task?.type === "text" ? task.text.replace(/^write /, "") : "none";
    return respond([{ type: "tool_use", id: `tu_${file}`, name: "files.write_file", input: { path: `/w/${file}`, content: file } }]);
  },
};

const runtime = await Runtime.create({
  dataDir,
  agentsDir: join(dataDir, `agents-${name}`),
  storeUrl: url,
  ...(process.env.CLAWHIVE_STORE_AUTH_TOKEN ? { storeAuthToken: process.env.CLAWHIVE_STORE_AUTH_TOKEN } : {}),
  pluginDirs: [FILES_PLUGIN],
  sandbox: { poolSize: 0 },
  runLeaseMs: Number(process.env.CLUSTER_LEASE_MS ?? 3000),
  scheduleClaimTimeoutMs: 2000,
  runSchedules: true,
  modelProvider: () => model,
});
print({ ready: runtime.node });

const submit = async (i: number): Promise<void> => {
  const file = `${name}-${process.pid}-${i}`;
  const explicit = i % 2 === 1;
  const { run, settled } = explicit
    ? await runtime.submitRun({ agent: "writer", toolCalls: [{ name: "files.write_file", input: { path: `/w/e-${file}`, content: file } }] })
    : await runtime.submitRun({ agent: "writer", task: `write m-${file}` });
  settled.catch(() => undefined);
  print({ ack: run.id, file: `${explicit ? "e" : "m"}-${file}` });
};

if (mode === "hang") await submit(0);
if (mode === "load") {
  for (let i = 0; i < Number(count); i++) {
    await submit(i);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  print({ submitted: Number(count) });
}
// Lives until killed (or its parent closes stdin).
process.stdin.resume();
process.stdin.on("end", () => void runtime.close().then(() => process.exit(0)));
