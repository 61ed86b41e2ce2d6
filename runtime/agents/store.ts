/**
 * Agents defined through the API, kept in the store (table `agents`) as the text they were given
 * — YAML or JSON — so every runtime process on the store, and the next start, sees them. Each is
 * parsed by the same parser as `capabilities/<name>.yaml`, so errors name the field the same way.
 */
import { statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { stringify } from "yaml";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { ClawhiveError, InvalidInputError } from "../errors.js";
import { NAME_MESSAGE, NAME_REGEX } from "../policy/catalogue/index.js";
import { applyMigrations } from "../store/index.js";
import type { Clock, Migration, Row, Store } from "../store/index.js";
import { unacknowledgedProblems } from "./dangers.js";
import { grantMounts } from "./host-dirs.js";
import { AgentManifestError, inFile } from "./issues.js";
import type { ManifestIssue } from "./issues.js";
import { parseAgentManifest } from "./parse.js";
import type { ParsedAgentManifest } from "./parse.js";
import type { AgentManifest } from "./schema.js";
import { missingAgentProblems, spawnWiderWarnings } from "./spawn.js";
import { CLIENT_JSON, scanJson } from "../json/index.js";

export type AgentFormat = "yaml" | "json";
export const AGENT_FORMATS: readonly AgentFormat[] = ["yaml", "json"];
/** Largest manifest text kept; the examples in capabilities/ are a few KiB. */
export const MAX_AGENT_SOURCE_BYTES = 256 * 1024;

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

export interface ParseAgentSourceOptions {
  readonly format: AgentFormat;
  /** The data dir: relative mount hosts resolve against it. */
  readonly dataDir: string;
  /** The name the manifest must carry (the API path's `:name`). */
  readonly name?: string;
  /** Named in every error; default `<agent NAME>`. */
  readonly file?: string;
  /**
   * The other agents it may reference (`sub_agents`, `agent.spawn`, `schedule`): references are
   * checked against them, and `spawn-wider-agent` too. Without it references are not checked.
   */
  readonly known?: ReadonlyMap<string, AgentManifest>;
  /** Dirs no writable mount may contain, besides the data dir (e.g. the manifests dir). */
  readonly protectedDirs?: readonly string[];
  /** The runtime's forbidden mount roots (see host-dirs.ts). */
  readonly hostGuard?: MountHostGuard | undefined;
  /**
   * Default false: nothing is written, and a mount folder inside the data dir that does not
   * exist yet is accepted (it would be created). True creates those folders, as the runtime does
   * for file agents, before the full check.
   */
  readonly createMounts?: boolean;
}

/**
 * Parses an agent manifest given as YAML or JSON text. Throws `AgentManifestError` (400, its
 * `field` the first problem's path) for anything the loader would refuse.
 */
export async function parseAgentSource(source: string, options: ParseAgentSourceOptions): Promise<ParsedAgentManifest> {
  const file = options.file ?? `<agent ${options.name ?? "?"}>`;
  const yaml = yamlText(source, options.format, file);
  const common = { file, baseDir: options.dataDir, protectedDirs: options.protectedDirs, hostGuard: options.hostGuard };
  const lint = parseAgentManifest(yaml, { ...common, checkHostDirs: false });
  if (options.name !== undefined && lint.manifest.name !== options.name) {
    throw new AgentManifestError([{ file, path: "name", message: `must equal the name in the request path (${options.name}), got ${lint.manifest.name}` }]);
  }
  const missing = missingDataDirMounts(lint.manifest, options.dataDir);
  if (options.createMounts === true) for (const { host } of missing) await mkdir(host, { recursive: true });
  const parsed = options.createMounts === true || missing.length === 0 ? parseAgentManifest(yaml, common) : withoutMissingDirs(yaml, { ...common, lint, missing });
  if (options.known !== undefined) crossChecks(parsed, { known: options.known, file });
  return parsed;
}

/** JSON is turned into YAML text (a JSON document's syntax errors are JSON's, reported as such). */
function yamlText(source: string, format: AgentFormat, file: string): string {
  if (Buffer.byteLength(source, "utf8") > MAX_AGENT_SOURCE_BYTES) {
    throw new AgentManifestError([{ file, path: "(root)", message: `larger than ${MAX_AGENT_SOURCE_BYTES} bytes` }]);
  }
  if (format === "yaml") return source;
  // Written out again as YAML (recursively): JSON nested past the client limit is refused first.
  const problem = scanJson(source, CLIENT_JSON);
  if (problem) throw new AgentManifestError([{ file, path: problem.path || "(root)", message: problem.message.replace(/^the JSON: /, "") }]);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    // V8's message quotes the text around the error; the field is enough to find it.
    throw new AgentManifestError([{ file, path: "(root)", message: "not valid JSON" }]);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new AgentManifestError([{ file, path: "(root)", message: `expected an object (name, description, model, …), got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}` }]);
  }
  return stringify(value);
}

interface MissingMount {
  path: string;
  host: string;
}

/** Mount hosts inside the data dir that do not exist yet: the runtime creates those. */
export function missingDataDirMounts(manifest: AgentManifest, dataDir: string): MissingMount[] {
  const base = resolve(dataDir);
  const missing: MissingMount[] = [];
  for (const { capability, index, mount } of grantMounts(manifest)) {
    const host = resolve(base, mount.host);
    const inside = relative(base, host);
    if (inside.startsWith("..") || isAbsolute(inside)) continue;
    if (!existsAsDir(host)) missing.push({ path: `grants.${capability}.mounts[${index}].host`, host });
  }
  return missing;
}

function existsAsDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The full check without writing: the only problems forgiven are "does not exist" for the
 * data-dir folders that would be created. When any other problem remains it is thrown; else
 * the lint parse stands (those folders cannot be symlinks, so it saw what the runtime will).
 */
function withoutMissingDirs(
  yaml: string,
  options: { file: string; baseDir: string; protectedDirs: readonly string[] | undefined; hostGuard: MountHostGuard | undefined; lint: ParsedAgentManifest; missing: readonly MissingMount[] },
): ParsedAgentManifest {
  const { lint, missing, ...parse } = options;
  try {
    return parseAgentManifest(yaml, parse);
  } catch (error) {
    if (!(error instanceof AgentManifestError)) throw error;
    const forgiven = new Set(missing.map((m) => m.path));
    const left = error.issues.filter((issue) => !forgiven.has(issue.path));
    if (left.length > 0) throw new AgentManifestError(left, { cause: error });
    return lint;
  }
}

/** What the folder loader checks across manifests: references exist, wider agents acknowledged. */
function crossChecks(parsed: ParsedAgentManifest, options: { known: ReadonlyMap<string, AgentManifest>; file: string }): void {
  const { known, file } = options;
  const agents = new Map(known);
  agents.set(parsed.manifest.name, parsed.manifest);
  const warnings = spawnWiderWarnings(parsed.manifest, agents);
  const problems = [...missingAgentProblems(parsed.manifest, agents), ...unacknowledgedProblems(parsed.manifest, warnings)];
  if (problems.length > 0) throw new AgentManifestError(inFile(file, problems));
  parsed.warnings.push(...warnings);
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
