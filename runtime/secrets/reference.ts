import type { Clock, Store } from "../store/index.js";
import { SecretError } from "./errors.js";
import type { SecretKey } from "./key.js";

/** The id of the key the store's secrets are sealed with, or undefined for a fresh store. */
export async function activeKeyId(store: Store): Promise<string | undefined> {
  const result = await store.execute("SELECT key_id FROM secret_keys WHERE active = 1");
  const row = result.rows[0];
  return row === undefined ? undefined : String(row.key_id);
}

/**
 * Makes `key` the store's key if it has none, then checks that the store's key is `key`. The
 * insert is ignored when another node got there first (one active row, by the unique index), so
 * the check that follows compares against whichever key won. A different key fails here, before
 * anything is sealed or opened, instead of producing garbage or unreadable rows later.
 */
export async function claimKey(store: Store, key: SecretKey, options: { clock: Clock }): Promise<void> {
  await store.execute({
    sql: "INSERT INTO secret_keys (key_id, active, created_at) VALUES (?, 1, ?) ON CONFLICT DO NOTHING",
    args: [key.id, options.clock.now()],
  });
  const active = await activeKeyId(store);
  if (active === key.id) return;
  throw new SecretError(
    "secret_key_mismatch",
    `secret key: the store ${store.location} expects key id ${active ?? "(none)"}, but this runtime's key ` +
      `(${key.source}${key.created ? ", created just now" : ""}) has id ${key.id}; give every node the key the store was set up with ` +
      "(CLAWHIVE_SECRET_KEY or the same key file) — the store keeps only the key's id, never the key",
  );
}
