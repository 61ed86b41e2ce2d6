import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { AgentManifestError, referenceProblems } from "../../agents/index.js";
import { loadSkills } from "../../skills/index.js";
import type { AgentManifest, DangerWarning, ManifestIssue, ParsedAgentManifest } from "../../agents/index.js";
import { AgentStore, parseAgentSource, storedFile } from "../../agents/store.js";
import type { AgentFormat, StoredAgent } from "../../agents/store.js";
import { ConflictError, NotFoundError } from "../../errors.js";
import { spawnWiderWarnings } from "../../agents/spawn.js";
import type { Runtime } from "../../runtime.js";
import type { MountHostGuard } from "../../../host-proxies/fs/index.js";

/**
 * Where an agent is defined. `file`: `capabilities/<name>.yaml` (edit the file). `store`: put
 * through the API, kept in the store. `runtime`: given to the runtime in code (`defineAgent`).
 */
export type AgentOrigin = "file" | "store" | "runtime";

export interface AgentEntry {
  readonly name: string;
  readonly origin: AgentOrigin;
  /** A file agent's manifest file, when the agents dir is known. */
  readonly file: string | undefined;
  /** A stored agent's text and times. */
  readonly stored: StoredAgent | undefined;
  /** Undefined when a stored agent no longer passes its checks (see `problems`). */
  readonly manifest: AgentManifest | undefined;
  readonly problems: readonly ManifestIssue[];
  /** One agent's view only (`get`): a file agent's text, and the combinations a manifest acknowledges. */
  readonly source?: string;
  readonly warnings?: readonly DangerWarning[];
}

export interface AgentCatalogOptions {
  /** The agent manifests folder the runtime loaded, to tell file agents apart and name their file. */
  readonly agentsDir?: string;
}

/**
 * The agents the API shows and changes: the runtime's (files, code) and the stored ones. Rules:
 * a stored agent may not take the name of a file or code agent (409), and only stored agents can
 * be replaced or removed through the API (409 naming the file for a file agent).
 *
 * A runtime that reads the `agents` table itself (`refreshAgents()`, before each run) is asked to
 * refresh after a change. One that does not is handed a put agent with `defineAgent`, and keeps
 * a removed one runnable in this process until it restarts.
 */
export class AgentCatalog {
  readonly #runtime: Runtime;
  readonly #store: Promise<AgentStore>;
  readonly #agentsDir: string | undefined;
  /** Names this catalog gave the runtime: stored agents, not code agents, whatever the runtime holds. */
  readonly #handed = new Set<string>();

  constructor(runtime: Runtime, options: AgentCatalogOptions = {}) {
    this.#runtime = runtime;
    this.#agentsDir = options.agentsDir;
    this.#store = AgentStore.open(runtime.store, { clock: runtime.clock });
    // Opened at once so a store failure shows at the first request, not as an unhandled rejection.
    this.#store.catch(() => undefined);
  }

  async list(): Promise<AgentEntry[]> {
    // As a run would find them: a file added, changed or broken since is seen now.
    await this.#refresh();
    const store = await this.#store;
    const stored = new Map((await store.list()).map((s) => [s.name, s]));
    const runtimeAgents = new Map(this.#runtime.agents().map((a) => [a.name, a]));
    // A manifest file that does not pass is listed too, with its problems: it is there, it cannot run.
    const invalidFiles = [...this.#runtime.invalidAgents().keys()].filter((n) => this.#fileOf(n) !== undefined);
    const names = [...new Set([...stored.keys(), ...invalidFiles, ...[...runtimeAgents.keys()].filter((n) => !this.#handed.has(n) || stored.has(n))])].sort();
    const entries: AgentEntry[] = [];
    for (const name of names) entries.push(await this.#entry(name, stored.get(name), runtimeAgents));
    return entries;
  }

  async get(name: string): Promise<AgentEntry | undefined> {
    await this.#refresh();
    const stored = await (await this.#store).get(name);
    const runtimeAgents = new Map(this.#runtime.agents().map((a) => [a.name, a]));
    const invalidFile = this.#runtime.invalidAgents().has(name) && this.#fileOf(name) !== undefined;
    if (stored === undefined && !invalidFile && (!runtimeAgents.has(name) || this.#handed.has(name))) return undefined;
    return this.#entry(name, stored, runtimeAgents, { detail: true });
  }

  /** Checks and stores agent `name` from its text; refused (409) for a file or code agent's name. */
  async put(name: string, source: string, options: { format: AgentFormat }): Promise<{ entry: AgentEntry; created: boolean; warnings: DangerWarning[] }> {
    const { format } = options;
    const existing = await this.get(name);
    if (existing !== undefined && existing.origin !== "store") throw notStored(existing, "replaced");
    const store = await this.#store;
    const result = await store.put(name, source, { format, dataDir: this.#runtime.dataDir, file: storedFile(name), known: this.#known(name), ...this.#protected() });
    if (!(await this.#refresh())) {
      await this.#runtime.defineAgent(result.parsed.manifest);
      this.#handed.add(name);
    }
    const entry: AgentEntry = { name, origin: "store", file: undefined, stored: result.agent, manifest: result.parsed.manifest, problems: [] };
    return { entry, created: result.created, warnings: result.parsed.warnings };
  }

  /** Removes stored agent `name`; 404 if there is none, 409 for a file or code agent. */
  async remove(name: string): Promise<AgentEntry> {
    const existing = await this.get(name);
    if (existing === undefined) throw new NotFoundError(`no agent named ${name}`);
    if (existing.origin !== "store") throw notStored(existing, "removed");
    await (await this.#store).remove(name);
    await this.#refresh();
    return existing;
  }

  /**
   * The checks `put` runs, writing nothing, then the agent's skills and sub-agents against this
   * runtime's skills dir and installed tools (`referenceProblems`). `name`, when given, must be
   * the manifest's.
   */
  async validate(source: string, options: { format: AgentFormat; name?: string | undefined }): Promise<ParsedAgentManifest> {
    const { format, name } = options;
    const file = name === undefined ? "<agent>" : storedFile(name);
    const parsed = await parseAgentSource(source, {
      format,
      dataDir: this.#runtime.dataDir,
      ...(name === undefined ? {} : { name }),
      file,
      known: this.#known(name),
      ...this.#protected(),
    });
    await this.#runtime.refreshPlugins();
    const { skills } = await loadSkills(this.#runtime.skillsDir);
    const problems = referenceProblems(parsed.manifest, { skills, tools: this.#runtime.tools() });
    if (problems.length > 0) throw new AgentManifestError(problems.map((p) => ({ file, ...p })));
    return parsed;
  }

  /** The manifest of agent `name` as a run would get it, or 404. */
  async manifest(name: string): Promise<AgentManifest> {
    const entry = await this.get(name);
    if (entry === undefined) throw new NotFoundError(`no agent named ${name}`);
    if (entry.manifest === undefined) throw new AgentManifestError(entry.problems);
    return entry.manifest;
  }

  /** Asks the runtime to re-read the stored agents; false when it cannot (it predates the `agents` table). */
  async #refresh(): Promise<boolean> {
    const runtime: object = this.#runtime;
    if (!("refreshAgents" in runtime) || typeof runtime.refreshAgents !== "function") return false;
    await (runtime.refreshAgents as () => Promise<void>).call(runtime);
    return true;
  }

  async #entry(name: string, stored: StoredAgent | undefined, runtimeAgents: ReadonlyMap<string, AgentManifest>, options: { detail?: boolean } = {}): Promise<AgentEntry> {
    const file = this.#fileOf(name);
    if (file !== undefined || (stored === undefined && runtimeAgents.has(name))) {
      // Files win over the store (the runtime loaded the file); a stored agent of that name is shadowed.
      const origin: AgentOrigin = file !== undefined ? "file" : "runtime";
      const entry = { name, origin, file, stored: undefined, manifest: runtimeAgents.get(name), problems: file === undefined ? [] : (this.#runtime.invalidAgents().get(name) ?? []) };
      return options.detail && file !== undefined ? { ...entry, ...(await this.#fileDetail(name, file, runtimeAgents)) } : entry;
    }
    try {
      const parsed = await parseAgentSource(stored!.source, { format: stored!.format, dataDir: this.#runtime.dataDir, name, file: storedFile(name), ...this.#protected() });
      return { name, origin: "store", file: undefined, stored, manifest: parsed.manifest, problems: [], warnings: [...parsed.warnings, ...spawnWiderWarnings(parsed.manifest, runtimeAgents)] };
    } catch (error) {
      if (!(error instanceof AgentManifestError)) throw error;
      return { name, origin: "store", file: undefined, stored, manifest: undefined, problems: error.issues };
    }
  }

  /** A file agent's text as it is now, and what its manifest acknowledges (none when it does not pass). */
  async #fileDetail(name: string, file: string, runtimeAgents: ReadonlyMap<string, AgentManifest>): Promise<{ source?: string; warnings: DangerWarning[] }> {
    let source: string;
    try {
      source = readFileSync(file, "utf8");
    } catch {
      return { warnings: [] };
    }
    try {
      const parsed = await parseAgentSource(source, { format: "yaml", dataDir: this.#runtime.dataDir, name, file, ...this.#protected() });
      return { source, warnings: [...parsed.warnings, ...spawnWiderWarnings(parsed.manifest, runtimeAgents)] };
    } catch (error) {
      if (!(error instanceof AgentManifestError)) throw error;
      return { source, warnings: [] };
    }
  }

  #fileOf(name: string): string | undefined {
    if (this.#agentsDir === undefined) return undefined;
    const file = join(this.#agentsDir, `${name}.yaml`);
    try {
      return statSync(file).isFile() ? file : undefined;
    } catch {
      return undefined;
    }
  }

  #known(except: string | undefined): Map<string, AgentManifest> {
    return new Map(this.#runtime.agents().filter((a) => a.name !== except).map((a) => [a.name, a]));
  }

  #protected(): { protectedDirs?: string[]; hostGuard: MountHostGuard } {
    const hostGuard = this.#runtime.mountGuard;
    return this.#agentsDir === undefined ? { hostGuard } : { protectedDirs: [this.#agentsDir], hostGuard };
  }
}

function notStored(entry: AgentEntry, verb: "replaced" | "removed"): ConflictError {
  if (entry.origin === "file") {
    return new ConflictError("agent_defined_by_file", `agent ${entry.name} is defined by ${entry.file ?? `${entry.name}.yaml in the agents dir`}; it cannot be ${verb} through the API: edit or remove the file`);
  }
  return new ConflictError("agent_defined_by_runtime", `agent ${entry.name} is defined by the runtime itself (a manifest in its agents dir, or code); it cannot be ${verb} through the API`);
}
