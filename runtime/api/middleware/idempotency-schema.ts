import type { Migration } from "../../store/index.js";

/**
 * `api_idempotency`: one row per (token and route, `Idempotency-Key`), holding the first answer
 * (status 0 while the first request still runs). Stores written before this migration existed
 * created the same table on first use, so it is created only if missing: their rows stay valid.
 * Times are epoch ms; rows older than a day are deleted as keys are claimed.
 */
export const idempotencyMigrations: readonly Migration[] = [
  {
    room: "api-idempotency",
    version: 1,
    name: "create api_idempotency",
    statements: [
      `CREATE TABLE IF NOT EXISTS api_idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        location TEXT,
        body TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
      )`,
      "CREATE INDEX IF NOT EXISTS api_idempotency_created ON api_idempotency (created_at)",
    ],
  },
  {
    room: "api-idempotency",
    version: 2,
    name: "answers larger than a row, in parts",
    // A run's answer carries its ToolCalls' outputs (up to the result cap each): one statement
    // may not move it, so a large body is kept in parts.
    statements: [
      "ALTER TABLE api_idempotency ADD COLUMN parts INTEGER NOT NULL DEFAULT 0",
      `CREATE TABLE api_idempotency_parts (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        part INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (scope, key, part)
      ) STRICT`,
    ],
  },
];
