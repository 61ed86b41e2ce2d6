/**
 * `api_idempotency` and `webhook_dead_letters` are store migrations (`api-idempotency#1` and `#2`,
 * `webhooks#1`, `webhooks#2`): recorded with their checksums, and a store whose tables were made
 * on first use by an earlier version keeps its rows through them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { IdempotencyRecords } from "../../runtime/api/middleware/idempotency.js";
import { openStore } from "../../runtime/store/index.js";
import { DeadLetters, webhookTarget } from "../../runtime/webhooks/index.js";

/** The tables exactly as the first-use code created them. */
const OLD_TABLES = [
  "CREATE TABLE IF NOT EXISTS api_idempotency (scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, location TEXT, body TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (scope, key))",
  "CREATE TABLE IF NOT EXISTS webhook_dead_letters (id TEXT PRIMARY KEY, target TEXT NOT NULL, event TEXT NOT NULL, payload TEXT NOT NULL, attempts INTEGER NOT NULL, last_error TEXT NOT NULL, failed_at INTEGER NOT NULL)",
];

async function migrations(store: Awaited<ReturnType<typeof openStore>>): Promise<string[]> {
  const rows = (await store.execute("SELECT room, version FROM migrations WHERE room IN ('api-idempotency', 'webhooks') ORDER BY room, version")).rows;
  return rows.map((r) => `${String(r.room)}#${Number(r.version)}`);
}

test("a store made before the migrations keeps its idempotency keys and dead letters", async () => {
  const store = await openStore({ url: ":memory:" });
  try {
    for (const sql of OLD_TABLES) await store.execute(sql);
    const now = Date.now();
    await store.execute({ sql: "INSERT INTO api_idempotency (scope, key, fingerprint, status, location, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", args: ["tok_1 POST /v1/runs", "k-1", "f", 201, "/v1/runs/run_1", '{"run":{}}', now] });
    const payload = { id: "evt_old", type: "run.ended", created_at: new Date(now).toISOString(), data: { run_id: "run_old" } };
    await store.execute({ sql: "INSERT INTO webhook_dead_letters (id, target, event, payload, attempts, last_error, failed_at) VALUES (?, ?, ?, ?, ?, ?, ?)", args: ["evt_old:https://h.example", "https://h.example", "run.ended", JSON.stringify(payload), 5, "HTTP 500", now] });

    const replay = await new IdempotencyRecords(store).claim("tok_1 POST /v1/runs", "k-1", "f", now);
    assert.deepEqual(replay, { claimed: false, fingerprint: "f", status: 201, location: "/v1/runs/run_1", body: '{"run":{}}' }, "the old key still answers");
    const letters = new DeadLetters(store);
    assert.deepEqual((await letters.list({ limit: 10 })).map((d) => d.payload.id), ["evt_old"], "the old dead letter is still listed");
    await letters.add(webhookTarget({ url: "https://h.example/x" }), { ...payload, id: "evt_new" } as never, 5, "HTTP 502");
    assert.deepEqual((await letters.list({ limit: 10 })).map((d) => d.payload.id).sort(), ["evt_new", "evt_old"]);
    assert.deepEqual(await migrations(store), ["api-idempotency#1", "api-idempotency#2", "webhooks#1", "webhooks#2", "webhooks#3"]);
  } finally {
    await store.close();
  }
});

test("control: a new store gets the tables from the migrations, each recorded once", async () => {
  const store = await openStore({ url: ":memory:" });
  try {
    assert.deepEqual(await migrations(store).catch(() => []), []);
    const records = new IdempotencyRecords(store);
    assert.deepEqual(await records.claim("s", "k", "f", Date.now()), { claimed: true });
    assert.deepEqual(await new DeadLetters(store).list({ limit: 1 }), []);
    await new DeadLetters(store).list({ limit: 1 });
    assert.deepEqual(await migrations(store), ["api-idempotency#1", "api-idempotency#2", "webhooks#1", "webhooks#2", "webhooks#3"]);
    const tables = (await store.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('api_idempotency', 'webhook_dead_letters', 'webhook_claims', 'webhook_outbox') ORDER BY name")).rows.map((r) => String(r.name));
    assert.deepEqual(tables, ["api_idempotency", "webhook_claims", "webhook_dead_letters", "webhook_outbox"]);
  } finally {
    await store.close();
  }
});
