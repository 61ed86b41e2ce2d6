import type { Migration } from "../../runtime/store/index.js";

/**
 * One table for every namespace. `size` is the key's UTF-8 bytes plus the value's bytes, the
 * unit of the quota, stored so that usage is a sum over one small column: the index on
 * (namespace, size) answers it without reading a single value. A rowid table, not WITHOUT ROWID:
 * values may be far larger than the 1/20 of a page SQLite advises for WITHOUT ROWID rows.
 */
export const kvMigrations: readonly Migration[] = [
  {
    room: "kv",
    version: 1,
    name: "create kv_entries",
    statements: [
      `CREATE TABLE kv_entries (
        namespace TEXT NOT NULL CHECK (length(namespace) > 0),
        key TEXT NOT NULL CHECK (length(key) > 0),
        size INTEGER NOT NULL CHECK (size > 0),
        value BLOB NOT NULL,
        PRIMARY KEY (namespace, key)
      ) STRICT`,
      "CREATE INDEX kv_entries_usage ON kv_entries (namespace, size)",
    ],
  },
];
