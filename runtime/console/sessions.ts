import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { applyMigrations } from "../store/index.js";
import type { Clock, Migration, Store } from "../store/index.js";
import { isRole } from "../api/auth/index.js";
import type { Role } from "../api/auth/index.js";

/**
 * `console_sessions`: who is signed in to the web console. A row keeps the SHA-256 of the
 * session id (never the id), the token's id and role, the per-session CSRF token, and the API
 * token sealed with AES-256-GCM under a key that lives only in the browser's cookie: a copy of
 * the store alone opens no session and reveals no token. Times are epoch ms.
 */
export const sessionMigrations: readonly Migration[] = [
  {
    room: "console-sessions",
    version: 1,
    name: "create console_sessions",
    statements: [
      `CREATE TABLE console_sessions (
        id_sha256 BLOB PRIMARY KEY CHECK (length(id_sha256) = 32),
        token_id TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'approver', 'client')),
        csrf TEXT NOT NULL,
        sealed BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT`,
      "CREATE INDEX console_sessions_expiry ON console_sessions (expires_at)",
    ],
  },
];

/** A signed-in session as a request sees it: the token it acts with, and the CSRF token its forms carry. */
export interface ConsoleSession {
  readonly tokenId: string;
  readonly role: Role;
  readonly csrf: string;
  /** The API token the console calls `/v1` with, on this request only. */
  readonly token: string;
  readonly expiresAt: number;
}

export interface OpenedSession {
  /** The cookie's value: `<id>.<key>`, both base64url. */
  readonly cookie: string;
  readonly session: ConsoleSession;
}

/** Eight hours: a working day; signing out ends it sooner. */
export const DEFAULT_SESSION_MS = 8 * 60 * 60 * 1000;
const COOKIE_PATTERN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export async function openSessionStore(store: Store, options: { clock: Clock; ttlMs?: number }): Promise<SessionStore> {
  await applyMigrations(store, sessionMigrations, { clock: options.clock });
  return new SessionStore(store, options);
}

/** Console sessions in the store: every node sharing it knows them; sign-out on one ends them on all. */
export class SessionStore {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #ttlMs: number;

  constructor(store: Store, options: { clock: Clock; ttlMs?: number }) {
    this.#store = store;
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs ?? DEFAULT_SESSION_MS;
  }

  /** A new session for an API token already verified as `tokenId` with `role`. */
  async create(token: string, principal: { tokenId: string; role: Role }): Promise<OpenedSession> {
    const id = randomBytes(16);
    const key = randomBytes(32);
    const csrf = randomBytes(32).toString("base64url");
    const now = this.#clock.now();
    const expiresAt = now + this.#ttlMs;
    // Expired rows go on the way: no timer, no background job.
    await this.#store.batch([
      { sql: "DELETE FROM console_sessions WHERE expires_at <= ?", args: [now] },
      {
        sql: "INSERT INTO console_sessions (id_sha256, token_id, role, csrf, sealed, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        args: [digest(id), principal.tokenId, principal.role, csrf, seal(token, key, id), now, expiresAt],
      },
    ]);
    return { cookie: `${id.toString("base64url")}.${key.toString("base64url")}`, session: { ...principal, csrf, token, expiresAt } };
  }

  /** The session a cookie names, or undefined for a malformed, unknown, expired or tampered one. */
  async get(cookie: string | undefined): Promise<ConsoleSession | undefined> {
    const parts = cookie === undefined ? null : COOKIE_PATTERN.exec(cookie);
    if (!parts) return undefined;
    const id = Buffer.from(parts[1]!, "base64url");
    const key = Buffer.from(parts[2]!, "base64url");
    const row = (await this.#store.execute({ sql: "SELECT token_id, role, csrf, sealed, expires_at FROM console_sessions WHERE id_sha256 = ?", args: [digest(id)] })).rows[0];
    if (row === undefined || !isRole(row.role) || Number(row.expires_at) <= this.#clock.now()) return undefined;
    const sealed = row.sealed;
    if (!(sealed instanceof Uint8Array)) return undefined;
    const token = unseal(Buffer.from(sealed), key, id);
    if (token === undefined) return undefined;
    return { tokenId: String(row.token_id), role: row.role, csrf: String(row.csrf), token, expiresAt: Number(row.expires_at) };
  }

  /** Ends the session a cookie names (sign-out); nothing happens for an unknown one. */
  async revoke(cookie: string | undefined): Promise<void> {
    const parts = cookie === undefined ? null : COOKIE_PATTERN.exec(cookie);
    if (!parts) return;
    await this.#store.execute({ sql: "DELETE FROM console_sessions WHERE id_sha256 = ?", args: [digest(Buffer.from(parts[1]!, "base64url"))] });
  }
}

/** True when `presented` is the session's CSRF token, compared in constant time. */
export function csrfMatches(session: Pick<ConsoleSession, "csrf">, presented: unknown): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}

function digest(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

/** iv (12) | ciphertext | tag (16); the session id is the associated data, so a sealed token cannot move to another row. */
function seal(token: string, key: Buffer, id: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(id);
  const body = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function unseal(sealed: Buffer, key: Buffer, id: Buffer): string | undefined {
  if (sealed.length < 12 + 16) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
    decipher.setAAD(id);
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
