import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Scheduler } from "../../runtime/schedules/index.js";
import { defineTestAgent, tempDir } from "../helpers/runtime.js";
import { errorOf } from "./fixtures.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let scheduler: Scheduler;
const soon = () => new Date(Date.now() + 3_600_000).toISOString();

before(async () => {
  f = await apiFixture();
  await defineTestAgent(f.runtime, "writer", { mounts: [{ guest: "/w", host: await tempDir(), mode: "rw" }] });
  scheduler = f.runtime.scheduler;
});
after(() => f.close());

test("POST creates a schedule owned by the caller; GET shows it; DELETE cancels it", async () => {
  const created = await call(f, "POST", "/v1/schedules", { token: f.token.client, json: { agent: "writer", task: "tidy /w", cron: "0 9 * * 1-5", timezone: "Europe/Stockholm", max_runs: 10 } });
  assert.equal(created.status, 201, created.text);
  const s = created.body.schedule;
  assert.equal(created.headers.get("location"), `/v1/schedules/${s.id}`);
  assert.equal(s.kind, "cron");
  assert.equal(s.status, "active");
  assert.ok(s.grants["fs.read"], "the agent's grant, captured");
  const one = await call(f, "GET", `/v1/schedules/${s.id}`, { token: f.token.client });
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.schedule, s);
  assert.deepEqual(one.body.firings, []);
  assert.equal((await scheduler.get(s.id))!.ownerToken, f.tokenId.client);
  const cancelled = await call(f, "DELETE", `/v1/schedules/${s.id}`, { token: f.token.client });
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.schedule.status, "cancelled");
  const again = await call(f, "DELETE", `/v1/schedules/${s.id}`, { token: f.token.client });
  assert.equal(again.status, 409);
  assert.equal(errorOf(again.text).code, "schedule_ended");
});

test("a one-shot with a narrower grant keeps exactly that grant", async () => {
  const agentGrant = (await call(f, "POST", "/v1/schedules", { json: { agent: "writer", task: "t", at: soon() } })).body.schedule.grants;
  const narrow = { "fs.read": agentGrant["fs.read"] };
  const created = await call(f, "POST", "/v1/schedules", { json: { agent: "writer", task: "read only", at: soon(), grants: narrow } });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(Object.keys(created.body.schedule.grants), ["fs.read"]);
});

test("a client sees and cancels only its own schedules; admin and approver see all", async () => {
  const mine = (await call(f, "POST", "/v1/schedules", { token: f.token.client, json: { agent: "writer", task: "mine", at: soon() } })).body.schedule;
  const theirs = (await call(f, "POST", "/v1/schedules", { token: f.token.other, json: { agent: "writer", task: "theirs", at: soon() } })).body.schedule;
  const listed = (token: string) => call(f, "GET", "/v1/schedules", { token }).then((a) => a.body.schedules.map((s: { id: string }) => s.id) as string[]);
  const clientSees = await listed(f.token.client);
  assert.ok(clientSees.includes(mine.id) && !clientSees.includes(theirs.id));
  for (const token of [f.token.admin, f.token.approver]) {
    const all = await listed(token);
    assert.ok(all.includes(mine.id) && all.includes(theirs.id));
  }
  assert.equal((await call(f, "GET", `/v1/schedules/${theirs.id}`, { token: f.token.client })).status, 404);
  assert.equal((await call(f, "DELETE", `/v1/schedules/${theirs.id}`, { token: f.token.client })).status, 404);
  assert.equal((await scheduler.get(theirs.id))!.status, "active", "not cancelled by someone else");
  assert.equal((await call(f, "GET", `/v1/schedules/${theirs.id}`, { token: f.token.approver })).status, 200);
  assert.equal((await call(f, "DELETE", `/v1/schedules/${theirs.id}`, { token: f.token.approver })).status, 403, "approvers read, never cancel");
  assert.equal((await call(f, "DELETE", `/v1/schedules/${theirs.id}`, { token: f.token.admin })).status, 200);
  assert.equal((await call(f, "POST", "/v1/schedules", { token: f.token.approver, json: { agent: "writer", task: "x", at: soon() } })).status, 403);
  const active = await call(f, "GET", "/v1/schedules?status=cancelled", { token: f.token.admin });
  assert.ok(active.body.schedules.some((s: { id: string }) => s.id === theirs.id));
});

describe("bad input: 4xx with the field, nothing stored", () => {
  const base = { agent: "writer", task: "t" };
  const past = new Date(Date.now() - 60_000).toISOString();
  const cases: Array<[what: string, body: unknown, status: number, field?: string]> = [
    ["neither at nor cron", base, 400, "body.at"],
    ["both at and cron", { ...base, at: soon(), cron: "* * * * *" }, 400, "body.at"],
    ["at without an offset", { ...base, at: "2030-01-01T09:00:00" }, 400, "body.at"],
    ["at in the past", { ...base, at: past }, 400, "body.at"],
    ["a bad cron", { ...base, cron: "whenever" }, 400, "body.cron"],
    ["a bad timezone", { ...base, cron: "* * * * *", timezone: "Nowhere/Land" }, 400, "body.timezone"],
    ["max_runs 0", { ...base, cron: "* * * * *", max_runs: 0 }, 400, "body.max_runs"],
    ["until on a one-shot", { ...base, at: soon(), until: soon() }, 400, "body.until"],
    ["a grant wider than the agent's", { ...base, at: soon(), grants: { "fs.read": { mounts: [{ guest: "/srv", host: "/srv" }] } } }, 400, "body.grants.fs.read.mounts[0]"],
    ["an unknown field", { ...base, at: soon(), every: "day" }, 400, "body.every"],
    ["an unknown agent", { ...base, agent: "ghost", at: soon() }, 404],
  ];
  for (const [what, body, status, field] of cases) {
    test(`${what} → ${status}`, async () => {
      const before = (await scheduler.list()).length;
      const answer = await call(f, "POST", "/v1/schedules", { json: body });
      assert.equal(answer.status, status, answer.text);
      if (field !== undefined) assert.equal(errorOf(answer.text).field, field, answer.text);
      assert.equal((await scheduler.list()).length, before);
    });
  }
  test("a bad id → 400, an unknown one → 404", async () => {
    assert.equal((await call(f, "GET", "/v1/schedules/nope")).status, 400);
    assert.equal((await call(f, "GET", "/v1/schedules/sch_unknown")).status, 404);
  });
});
