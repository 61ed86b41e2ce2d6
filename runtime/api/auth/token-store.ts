import { timingSafeEqual } from "node:crypto";
import { ClawhiveError, InvalidInputError } from "../../errors.js";
import { applyMigrations } from "../../store/index.js";
import type { Clock, Row, Store } from "../../store/index.js";
import { isRole, ROLES } from "./principal.js";
import type { Principal, Role } from "./principal.js";
import { tokenMigrations } from "./schema.js";
import { newTokenId, newTokenText, TOKEN_ID_PATTERN, tokenDigest, tokenIdOf } from "./token-text.js";

/** What `list()` shows of a token: never its secret or hash. Times are epoch ms. */
export interface TokenInfo {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

/** A new token: `token` is the only copy of its text — show it once, then drop it. */
export interface CreatedToken {
  readonly token: string;
  readonly info: TokenInfo;
}

export interface CreateTokenOptions {
  /** For people: who or what holds it. Default: the role. */
  readonly name?: string;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._@:()-]{0,63}$/;
/** `last_used_at` is rewritten at most this often, so authenticating is not a write per request. */
const TOUCH_EVERY_MS = 60_000;
/** Compared against when the id is unknown, so an unknown id costs the same as a wrong secret. */
const NO_SUCH_DIGEST = Buffer.alloc(32);
const COLUMNS = "id, name, role, created_at, last_used_at, revoked_at";

/** Migrates the `api-tokens` room and returns the token store over `store`. */
export async function openTokenStore(store: Store, options: { clock: Clock }): Promise<TokenStore> {
  await applyMigrations(store, tokenMigrations, { clock: options.clock });
  return new TokenStore(store, options);
}

/**
 * The API's bearer tokens in the `api_tokens` table. Holds no state of its own: every check reads
 * the store, so a token revoked on one node (or by `clawhive token revoke`) is refused at once by
 * every node sharing the store.
 */
export class TokenStore {
  readonly #store: Store;
  readonly #clock: Clock;

  /** Use `openTokenStore`, which migrates the store first. */
  constructor(store: Store, options: { clock: Clock }) {
    this.#store = store;
    this.#clock = options.clock;
  }

  async create(role: Role, options: CreateTokenOptions = {}): Promise<CreatedToken> {
    const name = checkTokenFields(role, options.name);
    const id = newTokenId();
    const token = newTokenText(id);
    const now = this.#clock.now();
    await this.#store.execute({
      sql: "INSERT INTO api_tokens (id, name, role, secret_sha256, created_at) VALUES (?, ?, ?, ?, ?)",
      args: [id, name, role, tokenDigest(token), now],
    });
    return { token, info: { id, name, role, createdAt: now, lastUsedAt: null, revokedAt: null } };
  }

  /**
   * An admin token if the store has no token at all (revoked ones count), else undefined. One
   * statement inserts only when the table is empty, so two nodes starting on a fresh shared
   * store create one admin token between them, not two.
   */
  async createFirstAdmin(): Promise<CreatedToken | undefined> {
    const id = newTokenId();
    const token = newTokenText(id);
    const now = this.#clock.now();
    const name = "first admin";
    const result = await this.#store.execute({
      sql: `INSERT INTO api_tokens (id, name, role, secret_sha256, created_at)
            SELECT ?, ?, 'admin', ?, ? WHERE NOT EXISTS (SELECT 1 FROM api_tokens)`,
      args: [id, name, tokenDigest(token), now],
    });
    if (result.rowsAffected === 0) return undefined;
    return { token, info: { id, name, role: "admin", createdAt: now, lastUsedAt: null, revokedAt: null } };
  }

  /** Every token, oldest first, revoked ones too. */
  async list(): Promise<TokenInfo[]> {
    const result = await this.#store.execute(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`);
    return result.rows.map(infoOf);
  }

  async get(id: string): Promise<TokenInfo | undefined> {
    checkTokenId(id);
    const result = await this.#store.execute({ sql: `SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`, args: [id] });
    const row = result.rows[0];
    return row === undefined ? undefined : infoOf(row);
  }

  /**
   * Revokes a token; undefined when there is none. Revoking a revoked token changes nothing (its
   * `revokedAt` stays the first revocation's).
   */
  async revoke(id: string): Promise<TokenInfo | undefined> {
    checkTokenId(id);
    const [, selected] = await this.#store.batch([
      { sql: "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", args: [this.#clock.now(), id] },
      { sql: `SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`, args: [id] },
    ]);
    const row = selected?.rows[0];
    return row === undefined ? undefined : infoOf(row);
  }

  /**
   * The principal a token text stands for, or undefined for a malformed, unknown, wrong or
   * revoked one (the caller answers 401 for all of them alike). The digests are compared in
   * constant time (`timingSafeEqual`), so the response time says nothing about how much of a
   * guessed secret was right.
   */
  async verify(text: string): Promise<Principal | undefined> {
    const id = tokenIdOf(text);
    const presented = tokenDigest(text);
    const row = id === undefined ? undefined : (await this.#store.execute({
      sql: "SELECT role, secret_sha256, last_used_at, revoked_at FROM api_tokens WHERE id = ?",
      args: [id],
    })).rows[0];
    const stored = row?.secret_sha256;
    const expected = stored instanceof Uint8Array && stored.length === 32 ? stored : NO_SUCH_DIGEST;
    const equal = timingSafeEqual(presented, expected);
    if (id === undefined || row === undefined || !equal || row.revoked_at !== null || !isRole(row.role)) return undefined;
    await this.#touch(id, row.last_used_at);
    return { tokenId: id, role: row.role };
  }

  async #touch(id: string, lastUsedAt: unknown): Promise<void> {
    const now = this.#clock.now();
    if (typeof lastUsedAt === "number" && now - lastUsedAt < TOUCH_EVERY_MS) return;
    try {
      await this.#store.execute({ sql: "UPDATE api_tokens SET last_used_at = ? WHERE id = ?", args: [now, id] });
    } catch {
      // `last_used_at` is a hint for people pruning tokens: a busy store must not turn a valid
      // token into a failed request.
    }
  }
}

/** Throws `InvalidInputError` (field `id`) unless `id` is a token id (`tok_` and 16 hex digits). */
export function checkTokenId(id: string): string {
  if (!TOKEN_ID_PATTERN.test(id)) {
    throw new InvalidInputError(`token id ${JSON.stringify(id)}: expected tok_ and 16 hex digits, as 'clawhive token list' shows`, { field: "id" });
  }
  return id;
}

function checkTokenFields(role: unknown, name: string | undefined): string {
  if (!isRole(role)) throw new InvalidInputError(`role ${JSON.stringify(role)}: expected one of ${ROLES.join(", ")}`, { field: "role" });
  const chosen = name ?? role;
  if (!NAME_PATTERN.test(chosen)) {
    throw new InvalidInputError(
      `name ${JSON.stringify(chosen)}: expected 1-64 characters (letters, digits, space and . _ @ : ( ) -), starting with a letter or digit`,
      { field: "name" },
    );
  }
  return chosen;
}

function infoOf(row: Row): TokenInfo {
  const role = row.role;
  if (!isRole(role)) throw new ClawhiveError("store_corrupt", `api_tokens ${String(row.id)}: unknown role ${String(role)}`);
  return {
    id: String(row.id),
    name: String(row.name),
    role,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}
