/**
 * A Guarded ToolCall whose arguments are over the approval size cap fails at once, audited as
 * denied: no person is asked to read 40 MB, and the run does not wait.
 */
import assert from "node:assert/strict";
import { readdir, rm } from "node:fs/promises";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { MAX_APPROVAL_ARGS_BYTES } from "../../runtime/policy/approvals/index.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let work: string;

before(async () => {
  work = await tempDir();
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 } }));
  await runtime.defineAgent({
    name: "writer", description: "writes", model: { provider: "anthropic", id: "m" }, system_prompt: "x",
    plugins: [{ name: "files", version: "*" }],
    grants: { "fs.write": { mounts: [{ guest: "/work", host: work, mode: "rw" }] } },
  });
});
after(async () => {
  await dispose();
  await rm(work, { recursive: true, force: true });
});

// Over the approval cap, and under the 4 MiB a tool input may have at all; an 8 MB input is
// refused before (as too long), so it never reaches the approval either.
const rows: Array<[string, number, "approval_required" | "error", string]> = [
  ["arguments over the cap", MAX_APPROVAL_ARGS_BYTES + 1, "error", "approval-too-large"],
  ["arguments of 3 MB", 3 * 1024 * 1024, "error", "approval-too-large"],
  ["arguments of 8 MB", 8 * 1024 * 1024, "error", "too-long"],
  ["arguments well under the cap (control)", 1000, "approval_required", "approval-required"],
];

for (const [label, bytes, expected, reason] of rows) {
  test(`a Guarded call with ${label}: ${expected === "error" ? "refused and audited, nobody asked" : "waits for a person"}`, async () => {
    const run = await runtime.startRun({ agent: "writer" });
    const outcome = await run.callTool("files.write_file", { path: "/work/big.txt", content: "x".repeat(bytes) });
    assert.equal(outcome.status, expected, JSON.stringify(outcome).slice(0, 500));
    const pending = await runtime.approvals.list({ runId: run.id });
    const { records } = await runtime.audit.query({ runId: run.id, kind: "tool_call", status: "denied", limit: 10 });
    if (expected === "error") {
      assert.equal((outcome as { error: { denial?: { reason: string } } }).error.denial?.reason, reason);
      assert.deepEqual(pending, [], "no approval was filed");
      assert.deepEqual(records.map((r) => r.denial?.reason), [reason]);
      assert.equal(run.status, "active", "the run does not wait");
      assert.deepEqual(await readdir(work), [], "nothing was written");
    } else {
      assert.equal(pending.length, 1);
      assert.deepEqual(records.map((r) => r.denial?.reason), [reason]);
    }
    await run.end();
  });
}
