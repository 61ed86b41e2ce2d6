import type { Migration } from "../store/index.js";

/**
 * The webhooks' tables. `webhook_dead_letters`: deliveries that failed every attempt (stores
 * written before this migration created it on first use, so it is created only if missing).
 * `webhook_claims`: which node delivers an event to a target — every node sharing a store sees
 * the same approval decided, and the first to claim (event, target) is the one that sends it.
 * Times are epoch ms.
 */
export const webhookMigrations: readonly Migration[] = [
  {
    room: "webhooks",
    version: 1,
    name: "create webhook_dead_letters",
    statements: [
      `CREATE TABLE IF NOT EXISTS webhook_dead_letters (
        id TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        event TEXT NOT NULL,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        last_error TEXT NOT NULL,
        failed_at INTEGER NOT NULL
      )`,
      "CREATE INDEX IF NOT EXISTS webhook_dead_letters_failed ON webhook_dead_letters (failed_at, id)",
    ],
  },
  {
    room: "webhooks",
    version: 2,
    name: "create webhook_claims",
    statements: [
      `CREATE TABLE webhook_claims (
        event_id TEXT NOT NULL,
        target TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        PRIMARY KEY (event_id, target)
      ) STRICT`,
      "CREATE INDEX webhook_claims_claimed ON webhook_claims (claimed_at)",
    ],
  },
];
