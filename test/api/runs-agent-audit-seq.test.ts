/** `GET /v1/runs?agent=` pages through one agent's runs; `GET /v1/audit/:seq` reads one record (clients: of their own runs). */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { defineTestAgent } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
const started: Record<string, string[]> = { alpha: [], beta: [] };

before(async () => {
  f = await apiFixture();
  for (const agent of ["alpha", "beta"]) await defineTestAgent(f.runtime, agent);
  for (const [agent, token] of [["alpha", f.token.client], ["beta", f.token.client], ["alpha", f.token.other]] as const) {
    const answer = await call(f, "POST", "/v1/runs?wait=true", { token, json: { agent, tool_calls: [{ name: "probe.echo", input: { text: agent } }] } });
    assert.ok(answer.status === 200 || answer.status === 201 || answer.status === 202, answer.text);
    started[agent]!.push(answer.body.run.id);
  }
});
after(() => f.close());

test("?agent= lists that agent's runs only, and its cursor pages through them alone; control: no filter lists both", async () => {
  const all = await call(f, "GET", "/v1/runs", { token: f.token.approver });
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(new Set(all.body.runs.map((r: { agent: string }) => r.agent)), new Set(["alpha", "beta"]));
  const first = await call(f, "GET", "/v1/runs?agent=alpha&limit=1", { token: f.token.approver });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.body.runs.length, 1);
  assert.ok(first.body.next_cursor, "a second alpha run is on the next page");
  const second = await call(f, "GET", `/v1/runs?agent=alpha&limit=1&cursor=${first.body.next_cursor}`, { token: f.token.approver });
  const ids = [...first.body.runs, ...second.body.runs].map((r: { id: string; agent: string }) => { assert.equal(r.agent, "alpha"); return r.id; });
  assert.deepEqual(ids.sort(), [...started.alpha!].sort());
  // A client sees its own runs of that agent only.
  const mine = await call(f, "GET", "/v1/runs?agent=alpha", { token: f.token.client });
  assert.deepEqual(mine.body.runs.map((r: { id: string }) => r.id), [started.alpha![0]]);
  for (const bad of ["Alpha", "a b", "-x", "x".repeat(70)]) {
    const answer = await call(f, "GET", `/v1/runs?agent=${encodeURIComponent(bad)}`, { token: f.token.approver });
    assert.equal(answer.status, 400, bad);
    assert.equal(answer.body.error.field, "query.agent", bad);
  }
});

test("GET /v1/audit/:seq answers that record; a missing one is 404 JSON, a malformed seq 400; a client reads only its runs' records", async () => {
  const page = await call(f, "GET", `/v1/audit?run_id=${started.alpha![0]}&order=asc`);
  assert.equal(page.status, 200, page.text);
  const wanted = page.body.records[0];
  const one = await call(f, "GET", `/v1/audit/${wanted.seq}`);
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(one.body.record, wanted);
  const missing = await call(f, "GET", "/v1/audit/999999999");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, "not_found");
  for (const bad of ["0", "-1", "1.5", "abc", "1".repeat(16)]) {
    const answer = await call(f, "GET", `/v1/audit/${bad}`);
    assert.equal(answer.status, 400, `${bad}: ${answer.text}`);
    assert.equal(answer.body.error.field, "path.seq", bad);
  }
  assert.equal((await call(f, "GET", "/v1/audit/verify")).status, 200, "control: verify is still its own route");
  assert.equal((await call(f, "GET", `/v1/audit/${wanted.seq}`, { token: f.token.client })).status, 200, "the client's own run");
  assert.equal((await call(f, "GET", `/v1/audit/${wanted.seq}`, { token: f.token.other })).status, 404, "another client's run is not shown to exist");
  assert.equal((await call(f, "GET", `/v1/audit/${wanted.seq}`, { token: f.token.approver })).status, 403);
});
