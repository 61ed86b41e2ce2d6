import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runChain, spawnSubAgent } from "../../runtime/runs/sub-agents.js";
import { apiFixture, call, type ApiFixture } from "../api/routes-fixtures.js";

let f: ApiFixture;
let work: string;

before(async () => {
  f = await apiFixture();
  work = join(f.dataDir, "work");
  await mkdir(work);
});
after(() => f.close());

async function define(name: string, extra: Record<string, unknown>): Promise<void> {
  const mount = { guest: "/work", host: work };
  await f.runtime.defineAgent({
    name,
    description: `agent ${name}`,
    model: { provider: "anthropic", id: "m" },
    system_prompt: "s",
    plugins: [{ name: "files", version: "*" }],
    ...extra,
    grants: { "fs.read": { mounts: [mount] }, "fs.write": { mounts: [{ ...mount, mode: "rw" }] }, ...(extra.grants as object | undefined) },
  });
}

test("an approval asked inside a child reaches the approvers (GET /v1/approvals) with its parent run and trace", async () => {
  await define("helper", {});
  await define("lead", { sub_agents: ["helper"], grants: { "agent.spawn": { agents: ["helper"] } } });
  const parent = await f.runtime.startRun({ agent: "lead", task: "delegate a write" });
  const result = await spawnSubAgent(f.runtime, parent, { agent: "helper", task: "write it", toolCalls: [{ name: "files.write_file", input: { path: "/work/c.txt", content: "c" } }] });
  assert.equal(result.status, "awaiting_approval", JSON.stringify(result));
  const { approvalId, runId } = result as Extract<typeof result, { runId: string }>;
  const list = await call(f, "GET", "/v1/approvals", { token: f.token.approver });
  assert.equal(list.status, 200, list.text);
  const shown = list.body.approvals.find((a: { id: string }) => a.id === approvalId);
  assert.ok(shown, "listed for the approvers");
  assert.equal(shown.run_id, runId);
  assert.equal(shown.parent_run_id, parent.id);
  assert.equal(shown.trace_id, parent.traceId);
  assert.equal(shown.agent, "helper");
  assert.equal(shown.task, "write it");
  // The chain an approver should see (see the report: approvalView does not include it yet).
  assert.deepEqual(await runChain(f.runtime.records, shown.run_id), [
    { runId: parent.id, agent: "lead" },
    { runId, agent: "helper" },
  ]);
  // Decided through the API like any approval; the child continues.
  const decided = await call(f, "POST", `/v1/approvals/${approvalId}`, { token: f.token.approver, json: { decision: "approve" } });
  assert.equal(decided.status, 200, decided.text);
  assert.equal(await f.runtime.continueRun(runId), true);
  assert.equal((await f.runtime.records.get(runId))?.status, "ended");
  await parent.end();
});
