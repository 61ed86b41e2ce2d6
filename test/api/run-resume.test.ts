import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { jsonCall } from "./fixtures.js";
import { apiFixture, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let runtime: Runtime;
let work: string;
let token: ApiFixture["token"];

before(async () => {
  // Nothing continues a decided run in the background: only the resume under test does.
  f = await apiFixture({ runtime: { continueDecidedRuns: false } });
  ({ runtime, token } = f);
  work = join(f.dataDir, "work");
  await mkdir(work);
  await defineTestAgent(runtime, "writer", { mounts: [{ guest: "/w", host: work, mode: "rw" }], plugins: ["files", "probe"] });
});

after(() => f.close());

function api(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  return jsonCall(f.server.base, method, path, { ...options, token: options.token ?? token.client });
}

/** A run of one planned write, waiting for its approval. */
async function waitingWrite(file: string): Promise<{ run: string; approval: string }> {
  const { status, body } = await api("POST", "/v1/runs?wait=true", { body: { agent: "writer", task: `write ${file}`, tool_calls: [{ name: "files.write_file", input: { path: `/w/${file}`, content: file } }] } });
  assert.equal(status, 201, JSON.stringify(body));
  assert.equal(body.run.status, "awaiting_approval");
  return { run: body.run.id, approval: body.run.pending_approval.id };
}

async function decide(approval: string, decision: "approve" | "deny"): Promise<void> {
  const { status, body } = await api("POST", `/v1/approvals/${approval}`, { token: token.admin, body: { decision } });
  assert.equal(status, 200, JSON.stringify(body));
}

test("POST /v1/runs/:id/resume refuses what it cannot continue, naming why (a table, each beside the pass below)", async () => {
  const pending = await waitingWrite("pending.txt");
  const active = await runtime.startRun({ agent: "writer", task: "left active" });
  const rows: Array<[what: string, path: string, tok: string, status: number, code: string, field?: string]> = [
    ["an unknown run", "/v1/runs/run_nope/resume", token.client, 404, "not_found", "path.id"],
    ["an id that is no id", "/v1/runs/bad%21id/resume", token.client, 400, "invalid_input", "path.id"],
    ["someone else's run", `/v1/runs/${pending.run}/resume`, token.other, 404, "not_found", "path.id"],
    ["an approval still pending", `/v1/runs/${pending.run}/resume`, token.client, 409, "approval_pending", "pending_approval"],
    ["a run not waiting", `/v1/runs/${active.id}/resume`, token.admin, 409, "run_not_waiting"],
  ];
  for (const [what, path, tok, status, code, field] of rows) {
    const got = await api("POST", path, { token: tok });
    assert.equal(got.status, status, `${what}: ${JSON.stringify(got.body)}`);
    assert.equal(got.body.error.code, code, what);
    if (field !== undefined) assert.equal(got.body.error.field, field, what);
    assert.equal(typeof got.body.error.message, "string", what);
  }
  assert.match((await api("POST", "/v1/runs/run_nope/resume")).body.error.message, /no run run_nope/);
  assert.equal(await readFile(join(work, "pending.txt"), "utf8").catch(() => "absent"), "absent", "a refused resume ran nothing");
  await active.cancel();
});

test("resume continues a decided plan of one call: the run ends, its outcome is the call's; a second resume is run_ended (409)", async () => {
  const { run, approval } = await waitingWrite("approved.txt");
  await decide(approval, "approve");
  const { status, body } = await api("POST", `/v1/runs/${run}/resume`);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.run.status, "ended");
  assert.equal(body.run.end_reason, "completed");
  assert.equal(body.outcome.status, "ok");
  assert.equal(body.outcome.tool, "files.write_file");
  assert.deepEqual(body.run.report.used, ["fs.write"]);
  assert.equal(await readFile(join(work, "approved.txt"), "utf8"), "approved.txt");
  const again = await api("POST", `/v1/runs/${run}/resume`);
  assert.equal(again.status, 409, JSON.stringify(again.body));
  assert.equal(again.body.error.code, "run_ended");
  assert.match(again.body.error.message, new RegExp(`run ${run} has ended at \\d{4}-`));
});

test("a denied approval fails the call: 200, outcome approval-denied, nothing written", async () => {
  const { run, approval } = await waitingWrite("denied.txt");
  await decide(approval, "deny");
  const { status, body } = await api("POST", `/v1/runs/${run}/resume`);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.outcome.status, "error");
  assert.equal(body.outcome.error.kind, "approval-denied");
  assert.equal(body.run.status, "ended");
  assert.equal(await readFile(join(work, "denied.txt"), "utf8").catch(() => "absent"), "absent");
});

test("a run whose ToolCalls a program makes one by one replays the call it paused on", async () => {
  const run = await runtime.startRun({ agent: "writer", task: "by hand" });
  const paused = await run.callTool("files.write_file", { path: "/w/by-hand.txt", content: "by hand" });
  assert.equal(paused.status, "approval_required");
  await decide(paused.status === "approval_required" ? paused.approval.id : "", "approve");
  const { status, body } = await api("POST", `/v1/runs/${run.id}/resume`, { token: token.admin });
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.outcome.status, "ok");
  assert.equal(body.run.status, "ended");
  assert.equal(await readFile(join(work, "by-hand.txt"), "utf8"), "by hand");
});

test("the OpenAPI document describes the route and its refusals", async () => {
  const { body } = await api("GET", "/v1/openapi.json", { token: token.admin });
  const op = body.paths["/v1/runs/{id}/resume"]?.post;
  assert.ok(op, "no POST /v1/runs/{id}/resume");
  for (const status of ["200", "404", "409"]) assert.ok(op.responses[status], `no ${status} response`);
  assert.match(op.description, /approval_pending/);
});
