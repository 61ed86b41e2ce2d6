import * as v from "valibot";
import { PluginError } from "../../errors.js";
import { allRows } from "../../store/index.js";
import type { Clock, Migration, Row, Statement, Store } from "../../store/index.js";
import { sha256 } from "../artifact.js";
import { PluginManifestSchema, RiskSchema, type PluginManifest } from "../manifest.js";
import { keyMigrations, TrustedKeys } from "../signing/index.js";
import { pendingMigrations, PendingUpgrades } from "./pending.js";

/**
 * Blobs are stored in rows of at most this size, written and read one chunk per statement: a
 * statement may move at most `MAX_STATEMENT_BYTES` (a server caps one response). Blobs stored
 * with the earlier 1 MiB chunks still read, one per statement.
 */
const CHUNK = 512 * 1024;

export const pluginMigrations: readonly Migration[] = [
  {
    room: "plugins",
    version: 1,
    name: "installed plugins and their content-addressed blobs",
    statements: [
      `CREATE TABLE plugin_blobs (
        sha256 TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        chunks INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT`,
      `CREATE TABLE plugin_blob_chunks (
        sha256 TEXT NOT NULL,
        seq INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (sha256, seq)
      ) STRICT`,
      `CREATE TABLE plugins (
        name_key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        format TEXT NOT NULL,
        publisher TEXT NOT NULL,
        manifest TEXT NOT NULL,
        blob_sha256 TEXT NOT NULL,
        tools TEXT NOT NULL,
        origin TEXT NOT NULL,
        first_party INTEGER NOT NULL,
        installed_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`,
    ],
  },
  {
    room: "plugins",
    version: 2,
    name: "the imports read from each blob at install",
    statements: ["ALTER TABLE plugins ADD COLUMN imports TEXT"],
  },
  ...pendingMigrations,
  ...keyMigrations,
];

/** A tool as validated at install: what `describe` said, checked against the manifest. */
export const InstalledToolSchema = v.strictObject({
  name: v.string(),
  description: v.string(),
  inputSchema: v.unknown(),
  capabilities: v.array(v.string()),
  risk: RiskSchema,
});
export type InstalledTool = v.InferOutput<typeof InstalledToolSchema>;

/** One installed plugin, as every runtime node sharing the store sees it. */
export interface InstalledPlugin {
  name: string;
  version: string;
  format: PluginManifest["format"];
  publisher: string;
  manifest: PluginManifest;
  blobSha256: string;
  size: number;
  tools: InstalledTool[];
  /** Where it was installed from (a path or URL), for people. */
  origin: string;
  /** Installed by the runtime itself from its own plugins/ folder (kept in step with the code). */
  firstParty: boolean;
  /** The imports read from the blob at install (a function of its bytes), or null for older installs. */
  imports: string[] | null;
  installedAt: number;
  updatedAt: number;
}

/** Names are unique case-insensitively: the key of a plugin. */
export function nameKey(name: string): string {
  return name.toLowerCase();
}

/**
 * The `plugins` and blob tables: installed plugins and their wasm, content-addressed (a blob
 * is stored once whatever names it) so any node sharing the store can compile and run it.
 */
export class PluginRegistry {
  readonly #store: Store;
  readonly #clock: Clock;
  /** Widening upgrades waiting for a person (their blobs are kept here too). */
  readonly pending: PendingUpgrades;
  /** The publisher keys the operator trusts to sign plugins. */
  readonly keys: TrustedKeys;

  constructor(store: Store, options: { clock: Clock }) {
    this.#store = store;
    this.#clock = options.clock;
    this.keys = new TrustedKeys(store, { clock: options.clock });
    this.pending = new PendingUpgrades(store, { clock: options.clock, blobStatements: (hash, bytes, now) => this.#blobStatements(hash, bytes, now), collectStatements: () => this.#collectStatements() });
  }

  async list(): Promise<InstalledPlugin[]> {
    const result = await this.#store.execute(
      "SELECT p.*, b.size FROM plugins p JOIN plugin_blobs b ON b.sha256 = p.blob_sha256 ORDER BY p.name_key",
    );
    return result.rows.map(toInstalled);
  }

  async get(name: string): Promise<InstalledPlugin | undefined> {
    const result = await this.#store.execute({
      sql: "SELECT p.*, b.size FROM plugins p JOIN plugin_blobs b ON b.sha256 = p.blob_sha256 WHERE p.name_key = ?",
      args: [nameKey(name)],
    });
    const row = result.rows[0];
    return row ? toInstalled(row) : undefined;
  }

  /** A cheap fingerprint of what is installed: changes whenever a plugin is added, upgraded or removed. */
  async fingerprint(): Promise<string> {
    const result = await this.#store.execute("SELECT name_key, blob_sha256, updated_at FROM plugins ORDER BY name_key");
    return result.rows.map((r) => `${String(r.name_key)}:${String(r.blob_sha256)}:${String(r.updated_at)}`).join(",");
  }

  /** The blob's bytes, checked against its address. */
  async blob(hash: string): Promise<Uint8Array> {
    const rows = await allRows(this.#store, {
      page: (after, limit) => ({ sql: "SELECT seq, bytes FROM plugin_blob_chunks WHERE sha256 = ? AND seq > ? ORDER BY seq LIMIT ?", args: [hash, after ?? -1, limit] }),
      key: (row) => row.seq as number,
      pageSize: 1,
    });
    if (rows.length === 0) throw new PluginError("blob_missing", `plugin blob ${hash} is not in the store; reinstall the plugin`);
    const parts = rows.map((r) => r.bytes as Uint8Array);
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.byteLength;
    }
    const actual = sha256(bytes);
    if (actual !== hash) throw new PluginError("blob_tampered", `plugin blob ${hash} in the store does not match its sha256 (got ${actual}); reinstall the plugin`);
    return bytes;
  }

  /**
   * Records `plugin` with its blob in one transaction. `replacing` is the row it replaces (an
   * upgrade), matched on its blob and update time so a concurrent change is never overwritten;
   * without it the name must be free.
   */
  async put(plugin: Omit<InstalledPlugin, "installedAt" | "updatedAt" | "size">, bytes: Uint8Array, replacing?: InstalledPlugin): Promise<void> {
    const now = this.#clock.now();
    const statements: Statement[] = [...this.#blobStatements(plugin.blobSha256, bytes, now)];
    const values = [plugin.name, plugin.version, plugin.format, plugin.publisher, JSON.stringify(plugin.manifest), plugin.blobSha256, JSON.stringify(plugin.tools), plugin.origin, plugin.firstParty ? 1 : 0, plugin.imports === null ? null : JSON.stringify(plugin.imports)];
    if (replacing) {
      statements.push({
        sql: `UPDATE plugins SET name = ?, version = ?, format = ?, publisher = ?, manifest = ?, blob_sha256 = ?, tools = ?, origin = ?, first_party = ?, imports = ?, updated_at = ?
              WHERE name_key = ? AND blob_sha256 = ? AND updated_at = ?`,
        args: [...values, now, nameKey(plugin.name), replacing.blobSha256, replacing.updatedAt],
      });
    } else {
      statements.push({
        sql: `INSERT INTO plugins (name, version, format, publisher, manifest, blob_sha256, tools, origin, first_party, imports, installed_at, updated_at, name_key)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name_key) DO NOTHING`,
        args: [...values, now, now, nameKey(plugin.name)],
      });
    }
    const results = await this.#store.batch([...statements, ...this.#collectStatements()]);
    if (results[statements.length - 1]!.rowsAffected !== 1) {
      throw new PluginError("plugin_changed", `plugin ${plugin.name} was installed, upgraded or removed by someone else meanwhile; look again and retry`);
    }
  }

  /** Removes `name` (and its blob once nothing names it); false when it was not installed. */
  async remove(name: string): Promise<boolean> {
    const results = await this.#store.batch([{ sql: "DELETE FROM plugins WHERE name_key = ?", args: [nameKey(name)] }, ...this.#collectStatements()]);
    return results[0]!.rowsAffected > 0;
  }

  #blobStatements(hash: string, bytes: Uint8Array, now: number): Statement[] {
    const chunks = Math.max(1, Math.ceil(bytes.byteLength / CHUNK));
    const statements: Statement[] = [
      { sql: "INSERT INTO plugin_blobs (sha256, size, chunks, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING", args: [hash, bytes.byteLength, chunks, now] },
    ];
    for (let seq = 0; seq < chunks; seq++) {
      statements.push({
        sql: "INSERT INTO plugin_blob_chunks (sha256, seq, bytes) VALUES (?, ?, ?) ON CONFLICT (sha256, seq) DO NOTHING",
        args: [hash, seq, bytes.subarray(seq * CHUNK, (seq + 1) * CHUNK)],
      });
    }
    return statements;
  }

  /** Blobs no plugin (installed or pending upgrade) names any more are dropped in the same transaction as the change. */
  #collectStatements(): Statement[] {
    const named = "SELECT blob_sha256 FROM plugins UNION SELECT blob_sha256 FROM plugin_upgrades";
    return [
      `DELETE FROM plugin_blob_chunks WHERE sha256 NOT IN (${named})`,
      `DELETE FROM plugin_blobs WHERE sha256 NOT IN (${named})`,
    ].map((sql) => ({ sql, args: [] }));
  }
}

function toInstalled(row: Row): InstalledPlugin {
  const manifest = v.parse(PluginManifestSchema, JSON.parse(String(row.manifest)));
  const tools = v.parse(v.array(InstalledToolSchema), JSON.parse(String(row.tools)));
  return {
    name: String(row.name),
    version: String(row.version),
    format: manifest.format,
    publisher: String(row.publisher),
    manifest,
    blobSha256: String(row.blob_sha256),
    size: Number(row.size),
    tools,
    origin: String(row.origin),
    firstParty: Number(row.first_party) === 1,
    imports: typeof row.imports === "string" ? (JSON.parse(row.imports) as string[]) : null,
    installedAt: Number(row.installed_at),
    updatedAt: Number(row.updated_at),
  };
}
