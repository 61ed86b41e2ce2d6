import { ConflictError, InvalidInputError, NotFoundError } from "../../errors.js";
import type { Clock, Migration, Row, Store } from "../../store/index.js";
import { parsePublicKey } from "./key.js";

export const keyMigrations: readonly Migration[] = [
  {
    room: "plugin-keys",
    version: 1,
    name: "publisher keys the operator trusts to sign plugins, and their revocations",
    statements: [
      `CREATE TABLE plugin_keys (
        key_id TEXT PRIMARY KEY,
        publisher TEXT NOT NULL,
        public_key TEXT NOT NULL,
        trusted_at INTEGER NOT NULL,
        trusted_by TEXT NOT NULL,
        revoked_at INTEGER,
        revoked_by TEXT
      ) STRICT`,
    ],
  },
];

/** A publisher key the operator trusts (or trusted: a revoked key stays listed, and refused). */
export interface TrustedKey {
  keyId: string;
  /** The plugin manifests' `publisher` this key may sign for. */
  publisher: string;
  publicKey: string;
  trustedAt: number;
  trustedBy: string;
  revokedAt: number | null;
  revokedBy: string | null;
}

const PUBLISHER = /^[^\s\p{Cc}][^\p{Cc}]{0,127}$/u;

/**
 * The `plugin_keys` table: which Ed25519 keys may sign plugins of which publisher. In the store,
 * so every node sharing it decides alike. Revocation is final: a revoked key cannot be trusted
 * again (a new key is generated instead), so a revoked key's old signatures never come back.
 */
export class TrustedKeys {
  readonly #store: Store;
  readonly #clock: Clock;

  constructor(store: Store, options: { clock: Clock }) {
    this.#store = store;
    this.#clock = options.clock;
  }

  /** Trusts `publicKey` for `publisher`. Trusting it again for the same publisher changes nothing. */
  async trust(input: { publicKey: string; publisher: string }, options: { by: string }): Promise<{ key: TrustedKey; action: "trusted" | "unchanged" }> {
    const parsed = parsePublicKey(input.publicKey);
    if (typeof input.publisher !== "string" || !PUBLISHER.test(input.publisher)) {
      throw new InvalidInputError("publisher: expected the publisher name plugin manifests give (1 to 128 characters, no control characters)", { field: "publisher" });
    }
    const existing = await this.get(parsed.keyId);
    if (existing !== undefined) {
      if (existing.revokedAt !== null) throw new ConflictError("key_revoked", `key ${parsed.keyId} was revoked; a revoked key is never trusted again: generate a new key`);
      if (existing.publisher !== input.publisher) throw new ConflictError("key_publisher_conflict", `key ${parsed.keyId} is trusted for publisher ${existing.publisher}; one key signs for one publisher`);
      return { key: existing, action: "unchanged" };
    }
    const now = this.#clock.now();
    await this.#store.execute({
      sql: "INSERT INTO plugin_keys (key_id, publisher, public_key, trusted_at, trusted_by) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key_id) DO NOTHING",
      args: [parsed.keyId, input.publisher, parsed.text, now, options.by],
    });
    const key = await this.get(parsed.keyId);
    if (key === undefined || key.publisher !== input.publisher) throw new ConflictError("key_changed", `key ${parsed.keyId} was changed by someone else meanwhile; look again ('clawhive keys list')`);
    return { key, action: "trusted" };
  }

  /** Revokes key `keyId`: plugins it signed are refused from now on (installed ones stay until upgraded or removed). */
  async revoke(keyId: string, options: { by: string }): Promise<TrustedKey> {
    const existing = await this.get(keyId);
    if (existing === undefined) throw new NotFoundError(`no trusted key ${keyId}; 'clawhive keys list' shows the keys`);
    if (existing.revokedAt !== null) return existing;
    await this.#store.execute({ sql: "UPDATE plugin_keys SET revoked_at = ?, revoked_by = ? WHERE key_id = ? AND revoked_at IS NULL", args: [this.#clock.now(), options.by, existing.keyId] });
    return (await this.get(existing.keyId))!;
  }

  async get(keyId: string): Promise<TrustedKey | undefined> {
    if (typeof keyId !== "string") return undefined;
    const result = await this.#store.execute({ sql: "SELECT * FROM plugin_keys WHERE key_id = ?", args: [keyId.toLowerCase()] });
    const row = result.rows[0];
    return row === undefined ? undefined : toKey(row);
  }

  async list(): Promise<TrustedKey[]> {
    const result = await this.#store.execute("SELECT * FROM plugin_keys ORDER BY publisher, trusted_at, key_id");
    return result.rows.map(toKey);
  }

  /** Whether the operator trusts any key (revoked or not) for `publisher`: then its plugins must be signed. */
  async knowsPublisher(publisher: string): Promise<boolean> {
    const result = await this.#store.execute({ sql: "SELECT 1 FROM plugin_keys WHERE publisher = ? LIMIT 1", args: [publisher] });
    return result.rows.length > 0;
  }
}

function toKey(row: Row): TrustedKey {
  return {
    keyId: String(row.key_id),
    publisher: String(row.publisher),
    publicKey: String(row.public_key),
    trustedAt: Number(row.trusted_at),
    trustedBy: String(row.trusted_by),
    revokedAt: row.revoked_at == null ? null : Number(row.revoked_at),
    revokedBy: row.revoked_by == null ? null : String(row.revoked_by),
  };
}
