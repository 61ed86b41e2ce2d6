import * as v from "valibot";
import type { Clock, Migration, Row, Statement, Store } from "../../store/index.js";

/**
 * A widening upgrade refused for want of acceptance is kept, so a person can read its
 * permission diff later (console, `clawhive plugin upgrades`) and accept or reject it without
 * sending the package again. Its blob sits in the store's content-addressed blob tables beside
 * the installed ones: every node sharing the store sees the same pending upgrades.
 */
export const pendingMigrations: readonly Migration[] = [
  {
    room: "plugins",
    version: 3,
    name: "pending widening upgrades and the installed version their diff was made against",
    statements: [
      `CREATE TABLE plugin_upgrades (
        name_key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        manifest_text TEXT NOT NULL,
        blob_sha256 TEXT NOT NULL,
        origin TEXT NOT NULL,
        diff TEXT NOT NULL,
        base_version TEXT NOT NULL,
        base_sha256 TEXT NOT NULL,
        base_updated_at INTEGER NOT NULL,
        proposed_by TEXT NOT NULL,
        proposed_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT`,
    ],
  },
];

/** At most this many pending upgrades are kept (the oldest goes first): each holds up to a 64 MiB blob. */
export const MAX_PENDING_UPGRADES = 16;
/** A pending upgrade no one decided on is dropped after a week: its diff was made against what was installed then. */
export const PENDING_UPGRADE_TTL_MS = 7 * 24 * 3600_000;

/** A widening upgrade waiting for a person's decision. */
export interface PendingUpgrade {
  name: string;
  version: string;
  manifestText: string;
  blobSha256: string;
  origin: string;
  /** The permission diff (diff.ts's shape, restated: diff.ts reads the registry's types). */
  diff: { widening: boolean; lines: string[] };
  /** The installed plugin the diff was made against: an accept is refused once it changed. */
  base: { version: string; sha256: string; updatedAt: number };
  proposedBy: string;
  proposedAt: number;
  expiresAt: number;
}

/** Statements writing a blob (idempotent): the registry's. */
export type BlobStatements = (hash: string, bytes: Uint8Array, now: number) => Statement[];

const DiffSchema = v.strictObject({ widening: v.boolean(), lines: v.array(v.string()) });

/** The `plugin_upgrades` table; the registry owns the blobs it names. */
export class PendingUpgrades {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #blobs: BlobStatements;
  readonly #collect: () => Statement[];

  constructor(store: Store, options: { clock: Clock; blobStatements: BlobStatements; collectStatements: () => Statement[] }) {
    this.#store = store;
    this.#clock = options.clock;
    this.#blobs = options.blobStatements;
    this.#collect = options.collectStatements;
  }

  /** The pending upgrades not yet expired, by name. */
  async list(): Promise<PendingUpgrade[]> {
    const result = await this.#store.execute({ sql: "SELECT * FROM plugin_upgrades WHERE expires_at > ? ORDER BY name_key", args: [this.#clock.now()] });
    return result.rows.map(toPending);
  }

  async get(name: string): Promise<PendingUpgrade | undefined> {
    const result = await this.#store.execute({ sql: "SELECT * FROM plugin_upgrades WHERE name_key = ? AND expires_at > ?", args: [name.toLowerCase(), this.#clock.now()] });
    const row = result.rows[0];
    return row ? toPending(row) : undefined;
  }

  /**
   * Keeps `pending` with its blob, in one transaction: it replaces an older one of the same
   * name, expired ones are dropped, and past the cap the oldest go (with blobs nothing names).
   */
  async put(pending: Omit<PendingUpgrade, "proposedAt" | "expiresAt">, bytes: Uint8Array): Promise<PendingUpgrade> {
    const now = this.#clock.now();
    const kept: PendingUpgrade = { ...pending, proposedAt: now, expiresAt: now + PENDING_UPGRADE_TTL_MS };
    const key = pending.name.toLowerCase();
    await this.#store.batch([
      { sql: "DELETE FROM plugin_upgrades WHERE expires_at <= ? OR name_key = ?", args: [now, key] },
      ...this.#blobs(pending.blobSha256, bytes, now),
      {
        sql: `INSERT INTO plugin_upgrades (name_key, name, version, manifest_text, blob_sha256, origin, diff, base_version, base_sha256, base_updated_at, proposed_by, proposed_at, expires_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [key, kept.name, kept.version, kept.manifestText, kept.blobSha256, kept.origin, JSON.stringify(kept.diff), kept.base.version, kept.base.sha256, kept.base.updatedAt, kept.proposedBy, now, kept.expiresAt],
      },
      {
        sql: `DELETE FROM plugin_upgrades WHERE name_key IN (SELECT name_key FROM plugin_upgrades ORDER BY proposed_at DESC, name_key LIMIT -1 OFFSET ?)`,
        args: [MAX_PENDING_UPGRADES],
      },
      ...this.#collect(),
    ]);
    return kept;
  }

  /** Drops the pending upgrade of `name` (only the one of blob `sha256` when given); false when there was none. */
  async remove(name: string, sha256?: string): Promise<boolean> {
    const where = sha256 === undefined ? { sql: "name_key = ?", args: [name.toLowerCase()] } : { sql: "name_key = ? AND blob_sha256 = ?", args: [name.toLowerCase(), sha256] };
    const results = await this.#store.batch([{ sql: `DELETE FROM plugin_upgrades WHERE ${where.sql}`, args: where.args }, ...this.#collect()]);
    return results[0]!.rowsAffected > 0;
  }
}

function toPending(row: Row): PendingUpgrade {
  return {
    name: String(row.name),
    version: String(row.version),
    manifestText: String(row.manifest_text),
    blobSha256: String(row.blob_sha256),
    origin: String(row.origin),
    diff: v.parse(DiffSchema, JSON.parse(String(row.diff))),
    base: { version: String(row.base_version), sha256: String(row.base_sha256), updatedAt: Number(row.base_updated_at) },
    proposedBy: String(row.proposed_by),
    proposedAt: Number(row.proposed_at),
    expiresAt: Number(row.expires_at),
  };
}
