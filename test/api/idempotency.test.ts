/**
 * `Idempotency-Key` on POST /v1/runs and /v1/schedules: a retry answers the first answer and
 * starts nothing; a reused key with another body, another token's key, a malformed key.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { defineTestAgent } from "../helpers/runtime.js";
import { errorOf } from "./fixtures.js";
import { apiFixture, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let agent: string;

before(async () => {
  f = await apiFixture();
  agent = await defineTestAgent(f.runtime, "idem");
});
after(() => f.close());

async function post(path: string, body: unknown, options: { key?: string; token?: string } = {}) {
  const response = await fetch(`${f.server.base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${options.token ?? f.token.client}`, "content-type": "application/json", ...(options.key === undefined ? {} : { "idempotency-key": options.key }) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

const runs = async () => (await f.runtime.records.list({ limit: 1000 })).length;
const call = { name: "probe.count", input: {} };

test("a retried POST /v1/runs answers the first run and starts no second one", async () => {
  const before = await runs();
  const first = await post("/v1/runs?wait=true", { agent, tool_calls: [call] }, { key: "k-run-1" });
  const again = await post("/v1/runs?wait=true", { agent, tool_calls: [call] }, { key: "k-run-1" });
  assert.equal(first.status, 201, first.text);
  assert.equal(again.status, 201);
  assert.equal(again.body.run.id, first.body.run.id);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  assert.equal(again.headers.get("location"), first.headers.get("location"));
  assert.equal(await runs(), before + 1);
});

test("control: without a key, or with another key, each POST starts a run", async () => {
  const before = await runs();
  await post("/v1/runs", { agent, tool_calls: [call] });
  await post("/v1/runs", { agent, tool_calls: [call] });
  await post("/v1/runs", { agent, tool_calls: [call] }, { key: "k-run-2" });
  await post("/v1/runs", { agent, tool_calls: [call] }, { key: "k-run-3" });
  assert.equal(await runs(), before + 4);
});

test("a retried POST /v1/schedules answers the first schedule", async () => {
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const first = await post("/v1/schedules", { agent, task: "later", at }, { key: "k-sched" });
  const again = await post("/v1/schedules", { agent, task: "later", at }, { key: "k-sched" });
  assert.equal(first.status, 201, first.text);
  assert.equal(again.body.schedule.id, first.body.schedule.id);
  assert.equal((await f.runtime.scheduler.list({})).filter((s) => s.id === first.body.schedule.id).length, 1);
});

describe("misuse of a key", () => {
  test("the same key with another body → 422 idempotency_key_reused, nothing started", async () => {
    await post("/v1/runs", { agent, tool_calls: [call] }, { key: "k-reuse" });
    const before = await runs();
    const other = await post("/v1/runs", { agent, tool_calls: [call, call] }, { key: "k-reuse" });
    assert.equal(other.status, 422, other.text);
    assert.equal(errorOf(other.text).code, "idempotency_key_reused");
    assert.equal(errorOf(other.text).field, "header.idempotency-key");
    assert.equal(await runs(), before);
  });
  test("another token's same key is its own: a new run, not the other's answer", async () => {
    const mine = await post("/v1/runs", { agent, tool_calls: [call] }, { key: "k-shared" });
    const theirs = await post("/v1/runs", { agent, tool_calls: [call] }, { key: "k-shared", token: f.token.other });
    assert.equal(theirs.status, 202, theirs.text);
    assert.notEqual(theirs.body.run.id, mine.body.run.id);
    assert.equal(theirs.headers.get("idempotent-replayed"), null);
  });
  for (const [what, key] of [["a space", "a b"], ["too long", "x".repeat(256)], ["non-ASCII", "clé"]] as const) {
    test(`a key with ${what} → 400 naming the header`, async () => {
      const answer = await fetch(`${f.server.base}/v1/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${f.token.client}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ agent, tool_calls: [call] }),
      });
      const text = await answer.text();
      assert.equal(answer.status, 400, text);
      assert.equal(errorOf(text).field, "header.idempotency-key");
    });
  }
});
