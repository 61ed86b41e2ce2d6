/**
 * The kv proxy's SQL. Every statement names its namespace: the proxy binds its own, so no call
 * can reach another's rows.
 */

/**
 * A conditional upsert: the row is written only when the namespace's usage without this key's
 * old row, plus the new size, fits the quota — or when the write does not grow the key (so a
 * namespace over a quota that was later lowered can still shrink). `rowsAffected` 0 means
 * refused. SQLite needs the WHERE before ON CONFLICT to parse an upsert over a SELECT
 * (https://sqlite.org/lang_upsert.html, "parsing ambiguity").
 */
export const SET_SQL = `INSERT INTO kv_entries (namespace, key, size, value)
SELECT :ns, :key, :size, :value
WHERE :size <= COALESCE((SELECT size FROM kv_entries WHERE namespace = :ns AND key = :key), 0)
   OR (SELECT COALESCE(SUM(size), 0) FROM kv_entries WHERE namespace = :ns)
      - COALESCE((SELECT size FROM kv_entries WHERE namespace = :ns AND key = :key), 0)
      + :size <= :quota
ON CONFLICT (namespace, key) DO UPDATE SET size = excluded.size, value = excluded.value`;

/** The namespace's bytes and keys, and the size of `:key` ("" for none: no key is empty). */
export const USAGE_SQL = `SELECT COALESCE(SUM(size), 0) AS used, COUNT(*) AS keys,
  COALESCE((SELECT size FROM kv_entries WHERE namespace = :ns AND key = :key), 0) AS current
FROM kv_entries WHERE namespace = :ns`;

export const GET_SQL = "SELECT value FROM kv_entries WHERE namespace = :ns AND key = :key";

export const DELETE_SQL = "DELETE FROM kv_entries WHERE namespace = :ns AND key = :key";

/**
 * A prefix as a range, not LIKE or GLOB: their wildcards (`%`, `_`, `*`, `?`, `[`) would match
 * more than the prefix, and LIKE folds ASCII case. Under the BINARY collation text compares as
 * its UTF-8 bytes; the byte 0xFF never occurs in UTF-8, so every key that starts with the prefix
 * lies in [prefix, prefix || 0xFF), and every key in that range starts with the prefix. The
 * range also lets SQLite seek the primary key index instead of scanning the namespace.
 */
export const LIST_SQL = `SELECT key FROM kv_entries
WHERE namespace = :ns AND key >= :prefix AND key < :prefix || CAST(x'FF' AS TEXT)
ORDER BY key`;
