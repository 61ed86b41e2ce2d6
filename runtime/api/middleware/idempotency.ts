/**
 * `Idempotency-Key` on the POSTs that start work (`POST /v1/runs`, `POST /v1/schedules`): a
 * client that lost the answer sends the same request with the same key and gets the first
 * answer back (`Idempotent-Replayed: true`) instead of a second run. Kept in the store, so a
 * retry that lands on another node of the same store is answered the same; keys are per token
 * and per route, and forgotten after a day.
 */
import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { applyMigrations, readParts, utf8Parts, type Store } from "../../store/index.js";
import { principalOf, type ApiEnv } from "../auth/index.js";
import { ApiError } from "./api-error.js";
import { idempotencyMigrations } from "./idempotency-schema.js";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Printable ASCII without spaces, as the IETF draft's examples and common clients use (UUIDs, ULIDs). */
const KEY = /^[\x21-\x7e]{1,255}$/;
/** A row claimed but not yet answered: another request with this key is still running. */
const IN_PROGRESS = 0;
/** A claim this old without an answer was left by a process that stopped mid-request: it is free again. */
export const ABANDONED_CLAIM_MS = 10 * 60 * 1000;
/** An answer larger than this (a run's outputs) is kept in parts: one statement may not move it. */
const INLINE_BODY_BYTES = 256 * 1024;

export class IdempotencyRecords {
  readonly #store: Store;
  #ready: Promise<void> | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Claims the key; answers the row already there when it was claimed before. */
  async claim(scope: string, key: string, fingerprint: string, now: number): Promise<{ claimed: true } | { claimed: false; fingerprint: string; status: number; location: string | null; body: string | null }> {
    await this.#table();
    await this.#store.batch([
      { sql: "DELETE FROM api_idempotency_parts WHERE (scope, key) IN (SELECT scope, key FROM api_idempotency WHERE created_at < ?)", args: [now - IDEMPOTENCY_TTL_MS] },
      { sql: "DELETE FROM api_idempotency WHERE created_at < ?", args: [now - IDEMPOTENCY_TTL_MS] },
    ]);
    const inserted = await this.#store.execute({
      sql: "INSERT INTO api_idempotency (scope, key, fingerprint, status, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING",
      args: [scope, key, fingerprint, IN_PROGRESS, now],
    });
    if (inserted.rowsAffected === 1) return { claimed: true };
    const row = (await this.#store.execute({ sql: "SELECT fingerprint, status, location, body, parts, created_at FROM api_idempotency WHERE scope = ? AND key = ?", args: [scope, key] })).rows[0];
    if (row === undefined) return this.claim(scope, key, fingerprint, now);
    if (Number(row.status) === IN_PROGRESS && Number(row.created_at) < now - ABANDONED_CLAIM_MS) {
      await this.#store.execute({ sql: "DELETE FROM api_idempotency WHERE scope = ? AND key = ? AND status = ? AND created_at = ?", args: [scope, key, IN_PROGRESS, Number(row.created_at)] });
      return this.claim(scope, key, fingerprint, now);
    }
    const body = Number(row.parts ?? 0) > 0 ? await readParts(this.#store, (after, limit) => ({ sql: "SELECT part, bytes FROM api_idempotency_parts WHERE scope = ? AND key = ? AND part > ? ORDER BY part LIMIT ?", args: [scope, key, after, limit] })) : row.body === null ? null : String(row.body);
    return { claimed: false, fingerprint: String(row.fingerprint), status: Number(row.status), location: row.location === null ? null : String(row.location), body };
  }

  /** Keeps the first answer: in its row, or in parts when larger than `INLINE_BODY_BYTES`. */
  async answer(scope: string, key: string, answer: { status: number; location: string | null; body: string }): Promise<void> {
    const parts = Buffer.byteLength(answer.body) > INLINE_BODY_BYTES ? utf8Parts(answer.body) : [];
    await this.#store.batch([
      { sql: "UPDATE api_idempotency SET status = ?, location = ?, body = ?, parts = ? WHERE scope = ? AND key = ?", args: [answer.status, answer.location, parts.length > 0 ? null : answer.body, parts.length, scope, key] },
      { sql: "DELETE FROM api_idempotency_parts WHERE scope = ? AND key = ?", args: [scope, key] },
      ...parts.map((bytes, part) => ({ sql: "INSERT INTO api_idempotency_parts (scope, key, part, bytes) VALUES (?, ?, ?, ?)", args: [scope, key, part, bytes] })),
    ]);
  }

  /** The request failed in a way a retry may fix (5xx): the key is free again. */
  async release(scope: string, key: string): Promise<void> {
    await this.#store.execute({ sql: "DELETE FROM api_idempotency WHERE scope = ? AND key = ? AND status = ?", args: [scope, key, IN_PROGRESS] });
  }

  #table(): Promise<void> {
    // Migrated once per process, before the first key is claimed (`createApp` is synchronous).
    return (this.#ready ??= applyMigrations(this.#store, idempotencyMigrations)
      .then(() => undefined)
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      }));
  }
}

/**
 * The middleware of one idempotent route. The same key with a different request (body, query)
 * is refused (422), as is a retry while the first is still running (409): neither is the
 * request the key stood for.
 */
export function idempotency(records: IdempotencyRecords, now: () => number = Date.now): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (!KEY.test(key)) throw new ApiError("invalid_input", "Idempotency-Key: expected 1 to 255 printable ASCII characters without spaces, e.g. a UUID", { status: 400, field: "header.idempotency-key" });
    const scope = `${principalOf(c).tokenId} ${c.req.method} ${c.req.path}`;
    const fingerprint = await fingerprintOf(c);
    const claim = await records.claim(scope, key, fingerprint, now());
    if (!claim.claimed) {
      if (claim.status !== IN_PROGRESS) assertIdempotencyFingerprint(claim.fingerprint, fingerprint);
      return replay(c, claim);
    }
    try {
      await next();
    } catch (error) {
      await records.release(scope, key).catch(() => undefined);
      throw error;
    }
    if (c.res.status >= 500) {
      await records.release(scope, key).catch(() => undefined);
      return;
    }
    await records.answer(scope, key, { status: c.res.status, location: c.res.headers.get("location"), body: await c.res.clone().text() });
  };
}

function replay(c: Context<ApiEnv>, claim: { fingerprint: string; status: number; location: string | null; body: string | null }): Response {
  if (claim.status === IN_PROGRESS) throw new ApiError("idempotency_in_progress", "Idempotency-Key: a request with this key is still running; retry once it has answered", { status: 409, field: "header.idempotency-key" });
  return new Response(claim.body, {
    status: claim.status,
    headers: { "content-type": "application/json", "idempotent-replayed": "true", ...(claim.location === null ? {} : { location: claim.location }) },
  });
}

async function fingerprintOf(c: Context<ApiEnv>): Promise<string> {
  const hash = createHash("sha256").update(`${c.req.method} ${c.req.url.replace(/^[^?]*/, "")}\n`);
  // Hono keeps the body it read here for the route's own validation.
  hash.update(new Uint8Array(await c.req.arrayBuffer()));
  return hash.digest("hex");
}

function assertIdempotencyFingerprint(expected: string, actual: string): void {
  if (expected !== actual) throw new ApiError("idempotency_key_reused", "Idempotency-Key: already used for a different request (body or query); use a new key for a new request", { status: 422, field: "header.idempotency-key" });
}
