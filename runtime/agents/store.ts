/**
 * Agents defined through the API, kept in the store (table `agents`) as the text they were given
 * — YAML or JSON — so every runtime process on the store, and the next start, sees them. Each is
 * parsed by the same parser as `capabilities/<name>.yaml`, so errors name the field the same way.
 */
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { ClawhiveError, InvalidInputError } from "../errors.js";
import { NAME_MESSAGE, NAME_REGEX } from "../policy/catalogue/index.js";
import { applyMigrations } from "../store/index.js";
import type { Clock, Migration, Row, Store } from "../store/index.js";
import { AgentManifestError, type ManifestIssue } from "./issues.js";
import type { ParsedAgentManifest } from "./parse.js";
import type { AgentManifest } from "./schema.js";
import { AGENT_FORMATS, crossChecks, parseAgentSource, type AgentFormat, type ParseAgentSourceOptions } from "./source.js";

export { AGENT_FORMATS, MAX_AGENT_SOURCE_BYTES, missingDataDirMounts, parseAgentSource } from "./source.js";
export type { AgentFormat, ParseAgentSourceOptions } from "./source.js";

export const agentStoreMigrations: readonly Migration[] = [
  {
    room: "agents",
    version: 1,
    name: "create agents",
    statements: [
      `CREATE TABLE agents (
        name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 63),
        source TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('yaml', 'json')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`,
    ],
  },
];

/** One stored agent: its text exactly as given. Times are epoch ms. */
export interface StoredAgent {
  readonly name: string;
  readonly source: string;
  readonly format: AgentFormat;
  readonly createdAt: number;
  readonly updatedAt: number;
}


export interface PutAgentOptions extends Omit<ParseAgentSourceOptions, "name" | "createMounts" | "format"> {
  readonly format: AgentFormat;
}

export interface PutAgentResult {
  readonly agent: StoredAgent;
  readonly parsed: ParsedAgentManifest;
  /** False when it replaced a stored agent of that name. */
  readonly created: boolean;
}

const COLUMNS = "name, source, format, created_at, updated_at";

/**
 * The `agents` table. Holds no state of its own: every answer reads the store, so several
 * runtime processes sharing it see one set of stored agents.
 */
export class AgentStore {
  readonly #store: Store;
  readonly #clock: Clock;

  /** Applies the `agents` migrations, then returns the store. */
  static async open(store: Store, options: { clock: Clock }): Promise<AgentStore> {
    await applyMigrations(store, agentStoreMigrations, { clock: options.clock });
    return new AgentStore(store, options);
  }

  /** For a store already migrated. */
  constructor(store: Store, options: { clock: Clock }) {
    this.#store = store;
    this.#clock = options.clock;
  }

  /**
   * Checks `source` as agent `name` (creating its data-dir mount folders) and stores it, replacing
   * a stored agent of that name. Nothing is stored when the check fails.
   */
  async put(name: string, source: string, options: PutAgentOptions): Promise<PutAgentResult> {
    checkAgentName(name);
    checkFormat(options.format);
    const parsed = await parseAgentSource(source, { ...options, name, createMounts: true });
    const now = this.#clock.now();
    // updated_at always moves on a change, even within one millisecond: caches compare it.
    const [before, , after] = await this.#store.batch([
      { sql: "SELECT 1 AS found FROM agents WHERE name = ?", args: [name] },
      {
        sql: `INSERT INTO agents (name, source, format, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
              ON CONFLICT (name) DO UPDATE SET source = excluded.source, format = excluded.format, updated_at = max(excluded.updated_at, agents.updated_at + 1)`,
        args: [name, source, options.format, now, now],
      },
      { sql: `SELECT ${COLUMNS} FROM agents WHERE name = ?`, args: [name] },
    ]);
    return { agent: agentOf(after!.rows[0]!), parsed, created: (before?.rows.length ?? 0) === 0 };
  }

  async get(name: string): Promise<StoredAgent | undefined> {
    checkAgentName(name);
    const result = await this.#store.execute({ sql: `SELECT ${COLUMNS} FROM agents WHERE name = ?`, args: [name] });
    const row = result.rows[0];
    return row === undefined ? undefined : agentOf(row);
  }

  /** By name. */
  async list(): Promise<StoredAgent[]> {
    const result = await this.#store.execute(`SELECT ${COLUMNS} FROM agents ORDER BY name`);
    return result.rows.map(agentOf);
  }

  /** Each stored agent's name and last change, without its text: what a cache compares. */
  async versions(): Promise<Array<{ name: string; updatedAt: number }>> {
    const result = await this.#store.execute("SELECT name, updated_at FROM agents ORDER BY name");
    return result.rows.map((row) => ({ name: String(row.name), updatedAt: Number(row.updated_at) }));
  }

  /** True when an agent was removed, false when none had the name. */
  async remove(name: string): Promise<boolean> {
    checkAgentName(name);
    const result = await this.#store.execute({ sql: "DELETE FROM agents WHERE name = ?", args: [name] });
    return result.rowsAffected > 0;
  }

  /**
   * Every stored agent parsed, for a runtime to load (at start and before a run). A stored agent
   * that no longer passes — a mount folder outside the data dir was removed, an agent it names is
   * gone — is left out and reported in `problems`, so one stale agent does not stop the others.
   */
  async manifests(options: { dataDir: string; known?: ReadonlyMap<string, AgentManifest>; protectedDirs?: readonly string[]; hostGuard?: MountHostGuard }): Promise<{
    agents: Map<string, AgentManifest>;
    problems: ManifestIssue[];
  }> {
    const stored = await this.list();
    const agents = new Map<string, AgentManifest>();
    const problems: ManifestIssue[] = [];
    // References may point at each other: parse alone first, then check them against everyone.
    const alone = new Map<string, ParsedAgentManifest>();
    for (const agent of stored) {
      try {
        alone.set(agent.name, await parseAgentSource(agent.source, { format: agent.format, dataDir: options.dataDir, name: agent.name, file: storedFile(agent.name), createMounts: true, protectedDirs: options.protectedDirs, hostGuard: options.hostGuard }));
      } catch (error) {
        if (!(error instanceof AgentManifestError)) throw error;
        problems.push(...error.issues);
      }
    }
    const everyone = new Map<string, AgentManifest>([...(options.known ?? new Map()), ...[...alone].map(([name, p]) => [name, p.manifest] as const)]);
    for (const [name, parsed] of alone) {
      try {
        crossChecks({ manifest: parsed.manifest, warnings: [...parsed.warnings] }, { known: everyone, file: storedFile(name) });
        agents.set(name, parsed.manifest);
      } catch (error) {
        if (!(error instanceof AgentManifestError)) throw error;
        problems.push(...error.issues);
      }
    }
    return { agents, problems };
  }
}

/** How a stored agent is named in errors, beside files' `capabilities/<name>.yaml`. */
export function storedFile(name: string): string {
  return `<stored agent ${name}>`;
}

export function checkAgentName(name: string): string {
  if (typeof name !== "string" || !NAME_REGEX.test(name)) throw new InvalidInputError(`agent name: ${NAME_MESSAGE}`, { field: "name" });
  return name;
}

function checkFormat(format: unknown): void {
  if (!AGENT_FORMATS.includes(format as AgentFormat)) throw new InvalidInputError(`format: expected yaml or json, got ${JSON.stringify(format)}`, { field: "format" });
}

function agentOf(row: Row): StoredAgent {
  const format = String(row.format);
  if (format !== "yaml" && format !== "json") throw new ClawhiveError("store_corrupt", `agents ${String(row.name)}: unknown format ${format}`);
  return { name: String(row.name), source: String(row.source), format, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at) };
}
