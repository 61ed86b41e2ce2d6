import type { Migration } from "../store/index.js";

/**
 * The webhooks' tables. `webhook_dead_letters`: deliveries that failed every attempt (stores
 * written before this migration created it on first use, so it is created only if missing).
 * `webhook_claims`: which node delivers an event to a target — every node sharing a store sees
 * the same approval decided, and the first to claim (event, target) is the one that sends it.
 * `webhook_outbox` (replaces the claims for approval events): one row per approval event per
 * target, added by whichever node sees the approval first (or catches up on start); a node
 * delivers it under a lease it renews each attempt, so a node that dies mid-delivery leaves a row
 * another node takes over, and a row `sent` or `failed` is never sent again.
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
  {
    room: "webhooks",
    version: 3,
    // Named for the integrator: renumber if another webhooks migration lands first.
    name: "create webhook_outbox (durable approval push)",
    statements: [
      `CREATE TABLE webhook_outbox (
        event_id TEXT NOT NULL,
        target TEXT NOT NULL,
        approval_id TEXT NOT NULL,
        type TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_by TEXT,
        lease_until INTEGER,
        created_at INTEGER NOT NULL,
        done_at INTEGER,
        PRIMARY KEY (event_id, target)
      ) STRICT`,
      "CREATE INDEX webhook_outbox_due ON webhook_outbox (state, lease_until)",
    ],
  },
];
