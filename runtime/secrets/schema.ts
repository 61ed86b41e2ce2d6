import type { Migration } from "../store/index.js";

/**
 * `secret_keys` is the store's reference to the key (DESIGN: Store): the id of the key the
 * secrets are sealed with, never the key. At most one key is `active` (the partial unique index),
 * so two nodes racing to set up a fresh store agree on one key: the second insert is ignored and
 * that node finds the winner's id. Rows keep their `key_id` so a later key rotation can tell old
 * rows from new ones.
 *
 * `secrets` holds only ciphertext: AES-256-GCM with a 12-byte nonce and a 16-byte tag, the
 * CHECKs refusing a row any code could write with the wrong shapes. Times are epoch ms.
 */
export const secretMigrations: readonly Migration[] = [
  {
    room: "secrets",
    version: 1,
    name: "create secret_keys and secrets",
    statements: [
      `CREATE TABLE secret_keys (
        key_id TEXT PRIMARY KEY,
        active INTEGER NOT NULL CHECK (active IN (0, 1)),
        created_at INTEGER NOT NULL
      ) STRICT`,
      "CREATE UNIQUE INDEX secret_keys_one_active ON secret_keys (active) WHERE active = 1",
      `CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES secret_keys (key_id),
        nonce BLOB NOT NULL CHECK (length(nonce) = 12),
        ciphertext BLOB NOT NULL CHECK (length(ciphertext) > 0),
        tag BLOB NOT NULL CHECK (length(tag) = 16),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`,
    ],
  },
];
