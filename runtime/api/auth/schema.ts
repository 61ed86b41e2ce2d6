import type { Migration } from "../../store/index.js";

/**
 * `api_tokens`: who may call the API. Only the SHA-256 of a token is stored (32 bytes, the CHECK
 * refusing anything else), never the token. A revoked token keeps its row so `token list` shows
 * when it was revoked and its id is never reused. Times are epoch ms.
 */
export const tokenMigrations: readonly Migration[] = [
  {
    room: "api-tokens",
    version: 1,
    name: "create api_tokens",
    statements: [
      `CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY CHECK (id GLOB 'tok_[0-9a-f]*' AND length(id) = 20),
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
        role TEXT NOT NULL CHECK (role IN ('admin', 'approver', 'client')),
        secret_sha256 BLOB NOT NULL CHECK (length(secret_sha256) = 32),
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      ) STRICT`,
    ],
  },
];
