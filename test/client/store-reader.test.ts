/**
 * The client over a store alone (what `runs`, `approvals` and `audit` use on the store) against
 * the client over the runtime on that same store: the same views, the same refusals. What it
 * does not serve is refused as a route it does not have, beside a read that passes.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ServerError, type ClawhiveClient, type RunView } from "../../runtime/client/index.js";
import { inProcessClient } from "../../runtime/client/in-process.js";
import { storeClient } from "../../runtime/client/store-reader.js";
import { apiFixture, type ApiFixture } from "../api/routes-fixtures.js";
import { defineTestAgent } from "../helpers/runtime.js";

let f: ApiFixture;
let runtimeClient: ClawhiveClient;
let reader: ClawhiveClient;
let waiting: RunView;
let ended: RunView;

async function settled(id: string): Promise<RunView> {
  for (let i = 0; i < 2000; i++) {
    const run = await runtimeClient.getRun(id);
    if (run.status !== "active") return run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${id} did not settle`);
}

before(async () => {
  f = await apiFixture();
  const work = join(f.dataDir, "work");
  await mkdir(work);
  await writeFile(join(work, "a.txt"), "a");
  await defineTestAgent(f.runtime, "writer", { mounts: [{ guest: "/work", host: work, mode: "rw" }] });
  runtimeClient = inProcessClient(f.runtime, { continueDecidedRuns: false });
  ended = await settled((await runtimeClient.submitRun({ agent: "writer", tool_calls: [{ name: "files.list_dir", input: { path: "/work" } }] })).id);
  waiting = await settled((await runtimeClient.submitRun({ agent: "writer", task: "write it", tool_calls: [{ name: "files.write_file", input: { path: "/work/w.txt", content: "w" } }] })).id);
  reader = await storeClient(f.runtime.store, { actor: "alice" });
});
after(async () => {
  await reader?.close();
  await runtimeClient?.close();
  await f?.close();
});

/** A call's answer, or its refusal's code, status and field. */
async function answer<T>(client: ClawhiveClient, call: (c: ClawhiveClient) => Promise<T>): Promise<T | { refused: { code: string; status: number; field: string | undefined } }> {
  try {
    return await call(client);
  } catch (error) {
    if (!(error instanceof ServerError)) throw error;
    return { refused: { code: error.code, status: error.status, field: error.field } };
  }
}

/**
 * A run's views as the store has them: a live run's report so far is known only to the runtime
 * driving it (the store keeps the report once the run ends), so it is left out of a run that
 * has not ended.
 */
function stored(value: unknown): unknown {
  const isRun = (x: unknown): x is RunView => typeof x === "object" && x !== null && "pending_approval" in x && "report" in x;
  const strip = (run: RunView) => (run.status === "ended" ? run : { ...run, report: null });
  if (Array.isArray(value)) return value.map((x) => (isRun(x) ? strip(x) : x));
  return isRun(value) ? strip(value) : value;
}

describe("the client over a store alone", () => {
  it("gives the runtime's answers and refusals for runs, approvals and the audit log", async () => {
    assert.equal(ended.status, "ended");
    assert.equal(waiting.status, "awaiting_approval");
    const approvalId = waiting.pending_approval!.id;
    const rows: Array<[string, (c: ClawhiveClient) => Promise<unknown>]> = [
      ["runs", (c) => c.listRuns()],
      ["ended runs", (c) => c.listRuns({ status: "ended", limit: 1 })],
      ["the ended run", (c) => c.getRun(ended.id)],
      ["the waiting run", (c) => c.getRun(waiting.id)],
      ["approvals", (c) => c.listApprovals({ status: "all" })],
      ["the run's approvals", (c) => c.listApprovals({ runId: waiting.id })],
      ["one approval", (c) => c.getApproval(approvalId)],
      ["an audit page", (c) => c.auditPage({ limit: 50 })],
      ["the audit of a run", (c) => c.auditPage({ run_id: ended.id, order: "asc" })],
      ["audit verify", (c) => c.verifyAudit()],
      ["unknown run", (c) => c.getRun("run_nope")],
      ["unknown approval", (c) => c.getApproval("apr_nope")],
      ["bad run status", (c) => c.request("GET", "/v1/runs", { query: { status: "paused" } })],
      ["bad audit cursor", (c) => c.auditPage({ cursor: "bogus" })],
    ];
    for (const [name, call] of rows) assert.deepEqual(stored(await answer(reader, call)), stored(await answer(runtimeClient, call)), name);
    // Control: what only the driving runtime knows is there, and only there.
    assert.notEqual((await runtimeClient.getRun(waiting.id)).report, null);
    assert.equal((await reader.getRun(waiting.id)).report, null);
    // The task of the run an approval belongs to comes with it (the store's path printed it).
    assert.equal((await reader.getApproval(approvalId)).task, "write it");
  });

  it("records the person who decides; a second decision is refused as on the runtime", async () => {
    const approvalId = waiting.pending_approval!.id;
    const decided = await reader.decideApproval(approvalId, { decision: "approve", reason: "checked" });
    assert.equal(decided.decision?.by, "alice");
    assert.equal(decided.status, "approved");
    const again = (c: ClawhiveClient) => c.decideApproval(approvalId, { decision: "deny" });
    const refused = await answer(reader, again);
    assert.deepEqual(refused, await answer(runtimeClient, again));
    assert.equal((refused as { refused: { status: number } }).refused.status, 409);
  });

  it("reading leaves the audit log as it was", async () => {
    const before = await reader.verifyAudit();
    await reader.listRuns();
    await reader.auditPage({ limit: 5 });
    assert.deepEqual(await reader.verifyAudit(), before);
  });

  it("refuses what needs a runtime (start, cancel, tools) as routes it does not have; a read passes (control)", async () => {
    const rows: Array<[string, (c: ClawhiveClient) => Promise<unknown>]> = [
      ["start a run", (c) => c.submitRun({ agent: "writer", tool_calls: [{ name: "files.list_dir", input: { path: "/work" } }] })],
      ["cancel a run", (c) => c.cancelRun(waiting.id)],
      ["tools", (c) => c.listTools()],
      ["secrets", (c) => c.listSecrets()],
    ];
    for (const [name, call] of rows) {
      const refused = await answer(reader, call);
      assert.deepEqual(refused, { refused: { code: "not_found", status: 404, field: undefined } }, name);
    }
    assert.equal((await reader.getRun(waiting.id)).id, waiting.id);
  });
});
