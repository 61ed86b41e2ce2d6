import { createHmac, type KeyObject } from "node:crypto";
import { applyMigrations } from "../store/index.js";
import type { Clock, Row, Store } from "../store/index.js";
import { seal, unseal } from "./cipher.js";
import { SecretError } from "./errors.js";
import { loadSecretKey } from "./key.js";
import type { SecretKeyConfig } from "./key.js";
import { activeKeyId, claimKey } from "./reference.js";
import { secretMigrations } from "./schema.js";
import { checkSecretName, checkSecretValue } from "./validate.js";

export interface OpenSecretStoreOptions extends SecretKeyConfig {
  /** Stamps `createdAt` / `updatedAt`. */
  readonly clock: Clock;
}

/** What `list()` shows of a secret: never its value. Times are epoch ms. */
export interface SecretInfo {
  readonly name: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * Migrates the `secrets` room, loads the key (see `loadSecretKey`), and checks it against the key
 * the store records — setting it on a fresh store. Fails with `SecretError` before returning when
 * the key is missing, malformed, or not the store's.
 */
export async function openSecretStore(store: Store, options: OpenSecretStoreOptions): Promise<SecretStore> {
  await applyMigrations(store, secretMigrations, { clock: options.clock });
  const expectedId = await activeKeyId(store);
  const key = await loadSecretKey(options, { mayCreate: expectedId === undefined, ...(expectedId === undefined ? {} : { expectedId }) });
  await claimKey(store, key, { clock: options.clock });
  return new SecretStore(store, { key: key.key, keyId: key.id, clock: options.clock });
}

const COLUMNS = "name, key_id, nonce, ciphertext, tag";

/**
 * Named secrets, sealed with AES-256-GCM in the `secrets` table (see `cipher.ts`). Lives on the
 * main thread only: workers never get the key or a value (DESIGN: Per-task sandbox). Holds no
 * state beyond the key, so several nodes sharing a store see the same secrets.
 */
export class SecretStore {
  readonly #store: Store;
  readonly #key: KeyObject;
  readonly #clock: Clock;
  /** The id of the key in use (what the store records); safe to show. */
  readonly keyId: string;

  /** Use `openSecretStore`, which checks the key against the store first. */
  constructor(store: Store, options: { key: KeyObject; keyId: string; clock: Clock }) {
    this.#store = store;
    this.#key = options.key;
    this.#clock = options.clock;
    this.keyId = options.keyId;
  }

  /**
   * A key for another use, derived from this one (HMAC-SHA-256 over a label): rooms that must
   * authenticate node-local files (the plugin build cache) get their own key, never this one.
   */
  deriveKey(label: string): Buffer {
    return createHmac("sha256", this.#key).update(`clawhive derived key v1\0${label}`).digest();
  }

  /** Creates or replaces a secret; a replaced one keeps its `createdAt`. */
  async set(name: string, value: string): Promise<SecretInfo> {
    checkSecretValue(checkSecretName(name), value);
    const sealed = seal(this.#key, { name, value });
    const now = this.#clock.now();
    const [, selected] = await this.#store.batch([
      {
        sql: `INSERT INTO secrets (name, key_id, nonce, ciphertext, tag, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (name) DO UPDATE SET key_id = excluded.key_id, nonce = excluded.nonce,
                ciphertext = excluded.ciphertext, tag = excluded.tag, updated_at = excluded.updated_at`,
        args: [name, this.keyId, sealed.nonce, sealed.ciphertext, sealed.tag, now, now],
      },
      { sql: "SELECT name, created_at, updated_at FROM secrets WHERE name = ?", args: [name] },
    ]);
    return infoOf(selected!.rows[0]!);
  }

  /** The value; `SecretError` `secret_not_found` (404) when there is none. */
  async get(name: string): Promise<string> {
    checkSecretName(name);
    const result = await this.#store.execute({ sql: `SELECT ${COLUMNS} FROM secrets WHERE name = ?`, args: [name] });
    const row = result.rows[0];
    if (row === undefined) throw new SecretError("secret_not_found", `secret ${name}: not found; add it with \`clawhive secret set ${name}\``);
    return this.#open(row);
  }

  async has(name: string): Promise<boolean> {
    checkSecretName(name);
    const result = await this.#store.execute({ sql: "SELECT 1 AS found FROM secrets WHERE name = ?", args: [name] });
    return result.rows.length > 0;
  }

  /** Names and times, by name. Reads no ciphertext. */
  async list(): Promise<SecretInfo[]> {
    const result = await this.#store.execute("SELECT name, created_at, updated_at FROM secrets ORDER BY name");
    return result.rows.map(infoOf);
  }

  /** True when a secret was removed, false when there was none. */
  async remove(name: string): Promise<boolean> {
    checkSecretName(name);
    const result = await this.#store.execute({ sql: "DELETE FROM secrets WHERE name = ?", args: [name] });
    return result.rowsAffected > 0;
  }

  /**
   * Every value in plaintext, for redaction lists (audit, proxy logs). Main thread only: the list
   * is every credential the runtime holds, so it must never be posted to a worker, logged or
   * returned by the API. Throws if any row fails to open: a redaction list missing a secret would
   * leak it, so fail closed.
   */
  async values(): Promise<string[]> {
    const result = await this.#store.execute(`SELECT ${COLUMNS} FROM secrets ORDER BY name`);
    return result.rows.map((row) => this.#open(row));
  }

  #open(row: Row): string {
    const name = String(row.name);
    const keyId = String(row.key_id);
    if (keyId !== this.keyId) {
      throw new SecretError(
        "secret_undecryptable",
        `secret ${name}: sealed with key id ${keyId}, but this runtime's key has id ${this.keyId}; set it again with \`clawhive secret set ${name}\``,
      );
    }
    const value = unseal(this.#key, { name, nonce: bytes(row.nonce), ciphertext: bytes(row.ciphertext), tag: bytes(row.tag) });
    if (value === undefined) {
      throw new SecretError(
        "secret_undecryptable",
        `secret ${name}: does not decrypt under key id ${keyId} — the stored bytes were altered or belong to another secret; ` +
          `set it again with \`clawhive secret set ${name}\``,
      );
    }
    return value;
  }
}

function infoOf(row: Row): SecretInfo {
  return { name: String(row.name), createdAt: Number(row.created_at), updatedAt: Number(row.updated_at) };
}

/** A BLOB column; anything else (a row rewritten by hand with text) opens as empty and fails auth. */
function bytes(value: unknown): Uint8Array {
  return value instanceof Uint8Array ? value : new Uint8Array(0);
}
