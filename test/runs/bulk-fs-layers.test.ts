/**
 * A run's `files.grep` and `files.glob` are one fs host operation each, decided on their start
 * by every layer, and inside the walk a sensitive name is searched only when every layer lifts
 * it: an agent that lifts `.env` under a task that does not never sees one, though the proxy
 * (built from the agent's grant) could.
 */
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 20_000, memoryMaxMb: 128 } }));
  work = await tempDir();
  await mkdir(join(work, "src"));
  await writeFile(join(work, "src", "a.ts"), "TOKEN in code\n");
  await writeFile(join(work, ".env"), "TOKEN=secret\n");
  await runtime.defineAgent({
    name: "lifter",
    description: "lifts .env",
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "files", version: "*" }],
    grants: { log: {}, "fs.read": { mounts: [{ guest: "/w", host: work }], allow_sensitive: [".env"] } },
  });
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

async function grep(grants?: Record<string, unknown>): Promise<{ files: string[]; searches: number; reads: number }> {
  const run = await runtime.startRun({ agent: "lifter", ...(grants === undefined ? {} : { grants }) });
  const outcome = await run.callTool("files.grep", { pattern: "TOKEN", path: "/w" });
  assert.ok(outcome.status === "ok", JSON.stringify(outcome));
  const output = outcome.output;
  const result = (typeof output === "string" ? JSON.parse(output) : output) as { matches: Array<{ file: string }> };
  await run.end();
  const { records } = await runtime.audit.query({ runId: run.id, kind: "host_call", limit: 1000 });
  const fs = records.filter((r) => r.hostCall?.proxy === "fs" && r.hostCall.function !== "mounts" && r.status === "intent");
  return {
    files: result.matches.map((m) => m.file),
    searches: fs.filter((r) => r.hostCall?.function === "search").length,
    reads: fs.filter((r) => r.hostCall?.function !== "search").length,
  };
}

test("bulk fs in a run: a task that does not lift .env never sees it in a search; control: lifted by both", async () => {
  const narrowed = await grep({ "fs.read": { mounts: [{ guest: "/w", host: work }] } });
  assert.deepEqual(narrowed.files, ["/w/src/a.ts"]);
  const lifted = await grep();
  assert.deepEqual(lifted.files.sort(), ["/w/.env", "/w/src/a.ts"]);
  // Each search is one host operation on record, never a call per file.
  for (const r of [narrowed, lifted]) assert.deepEqual([r.searches, r.reads], [1, 0]);
});
