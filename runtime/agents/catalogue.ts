/**
 * The agents a runtime knows, parsed only when their source changes: each manifest file is
 * re-read when its size or modification time changes, each stored agent when its `updated_at`
 * does. A look before every run is then a directory listing, a `stat` per file and one small
 * query — not a YAML parse of every agent. A manifest that does not pass is kept aside with its
 * problems: runs of it are refused with the reason, the valid agents stay runnable.
 */
import { mkdir, readdir, readFile, stat } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { unacknowledgedProblems } from "./dangers.js";
import { grantMounts } from "./host-dirs.js";
import { AgentManifestError, inFile, type ManifestIssue } from "./issues.js";
import { parseAgentManifest } from "./parse.js";
import type { AgentManifest } from "./schema.js";
import { missingAgentProblems, spawnWiderWarnings } from "./spawn.js";
import { parseAgentSource, storedFile, type AgentStore } from "./store.js";

export interface AgentCatalogueOptions {
  /** The manifests folder (`*.yaml`, each named after its agent). */
  readonly dir: string;
  /** Relative mount hosts resolve against it; mount folders inside it are created. */
  readonly dataDir: string;
  readonly hostGuard?: MountHostGuard;
  /** Agents put through the API; without it only files count. */
  readonly stored?: AgentStore;
  /**
   * Default true: mount folders inside the data dir are created (a runtime's catalogue). False
   * writes nothing and forgives only those folders' absence (a check, e.g. `clawhive doctor`).
   */
  readonly createMounts?: boolean;
}

/** One source's last parse: the manifest, or why it did not pass. */
interface Parsed {
  readonly version: string;
  readonly manifest?: AgentManifest;
  readonly issues: readonly ManifestIssue[];
}

/** What the catalogue says about one agent name. */
export type AgentLookup = { readonly manifest: AgentManifest } | { readonly issues: readonly ManifestIssue[] } | undefined;

export class AgentCatalogue {
  readonly #options: AgentCatalogueOptions;
  /** By file name (`writer.yaml`). */
  #files = new Map<string, Parsed>();
  /** By agent name. */
  #stored = new Map<string, Parsed>();
  #valid = { files: new Map<string, AgentManifest>(), stored: new Map<string, AgentManifest>() };
  #invalid = new Map<string, readonly ManifestIssue[]>();
  /** How many sources were parsed since the catalogue was made (what the cache saves is measurable). */
  parses = 0;

  constructor(options: AgentCatalogueOptions) {
    this.#options = options;
  }

  /** Valid file agents by name. */
  get files(): ReadonlyMap<string, AgentManifest> {
    return this.#valid.files;
  }

  /** Valid stored agents by name (a file agent's name is never one of them). */
  get stored(): ReadonlyMap<string, AgentManifest> {
    return this.#valid.stored;
  }

  /** Every agent that did not pass, with its problems. */
  get invalid(): ReadonlyMap<string, readonly ManifestIssue[]> {
    return this.#invalid;
  }

  lookup(name: string): AgentLookup {
    const manifest = this.#valid.files.get(name) ?? this.#valid.stored.get(name);
    if (manifest !== undefined) return { manifest };
    const issues = this.#invalid.get(name);
    return issues === undefined ? undefined : { issues };
  }

  /**
   * Re-reads what changed. `code` are agents given in code: they shadow files and stored agents
   * of their name and may be referenced. Returns the problems that are new since the last look.
   */
  async refresh(code: ReadonlyMap<string, AgentManifest> = new Map()): Promise<ManifestIssue[]> {
    const before = new Set([...this.#invalid.values()].flat().map(issueKey));
    const filesChanged = await this.#refreshFiles();
    const storedChanged = this.#options.stored === undefined ? false : await this.#refreshStored();
    if (filesChanged || storedChanged || this.#codeNames !== [...code.keys()].join()) this.#crossCheck(code);
    this.#codeNames = [...code.keys()].join();
    return [...this.#invalid.values()].flat().filter((issue) => !before.has(issueKey(issue)));
  }

  #codeNames = "";

  async #refreshFiles(): Promise<boolean> {
    const { dir } = this.#options;
    let names: string[];
    try {
      names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith(".yaml")).map((e) => e.name).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      names = [];
    }
    const next = new Map<string, Parsed>();
    let changed = names.length !== this.#files.size;
    for (const name of names) {
      const file = join(dir, name);
      const info = await stat(file).catch(() => undefined);
      if (info === undefined) continue;
      const version = `${info.mtimeMs}:${info.size}:${info.ino}`;
      const known = this.#files.get(name);
      if (known?.version === version) {
        next.set(name, known);
        continue;
      }
      changed = true;
      next.set(name, await this.#parseFile(file, version));
    }
    this.#files = next;
    return changed;
  }

  async #parseFile(file: string, version: string): Promise<Parsed> {
    this.parses += 1;
    const common = { file, baseDir: this.#options.dataDir, protectedDirs: [this.#options.dir], hostGuard: this.#options.hostGuard };
    try {
      const text = await readFile(file, "utf8");
      const stem = basename(file, ".yaml");
      if (this.#options.createMounts === false) {
        const { manifest } = await parseAgentSource(text, { format: "yaml", dataDir: this.#options.dataDir, file, protectedDirs: [this.#options.dir], hostGuard: this.#options.hostGuard });
        if (manifest.name !== stem) return { version, issues: [{ file, path: "name", message: `must equal the file name (${stem}), got ${manifest.name}` }] };
        return { version, manifest, issues: [] };
      }
      // A fresh data dir has no workspace yet: its folders are made before the full check.
      const lint = parseAgentManifest(text, { ...common, checkHostDirs: false });
      await createDataDirMounts(lint.manifest, this.#options.dataDir);
      const { manifest } = parseAgentManifest(text, common);
      if (manifest.name !== stem) return { version, issues: [{ file, path: "name", message: `must equal the file name (${stem}), got ${manifest.name}` }] };
      return { version, manifest, issues: [] };
    } catch (error) {
      if (!(error instanceof AgentManifestError)) return { version, issues: [{ file, path: "(root)", message: (error as Error).message }] };
      return { version, issues: error.issues };
    }
  }

  async #refreshStored(): Promise<boolean> {
    const store = this.#options.stored!;
    const versions = await store.versions();
    const next = new Map<string, Parsed>();
    let changed = versions.length !== this.#stored.size;
    for (const { name, updatedAt } of versions) {
      const version = String(updatedAt);
      const known = this.#stored.get(name);
      if (known?.version === version) {
        next.set(name, known);
        continue;
      }
      changed = true;
      const agent = await store.get(name);
      if (agent === undefined) continue;
      this.parses += 1;
      try {
        const parsed = await parseAgentSource(agent.source, { format: agent.format, dataDir: this.#options.dataDir, name, file: storedFile(name), createMounts: true, protectedDirs: [this.#options.dir], hostGuard: this.#options.hostGuard });
        next.set(name, { version, manifest: parsed.manifest, issues: [] });
      } catch (error) {
        if (!(error instanceof AgentManifestError)) throw error;
        next.set(name, { version, issues: error.issues });
      }
    }
    this.#stored = next;
    return changed;
  }

  /** References and wider sub-agents are checked across agents: files among files (and code), stored agents against all. */
  #crossCheck(code: ReadonlyMap<string, AgentManifest>): void {
    const invalid = new Map<string, readonly ManifestIssue[]>();
    const fileAgents = new Map<string, AgentManifest>();
    for (const [name, parsed] of this.#files) {
      if (parsed.manifest !== undefined) fileAgents.set(parsed.manifest.name, parsed.manifest);
      else invalid.set(basename(name, ".yaml"), parsed.issues);
    }
    const files = checkedAgainst(fileAgents, new Map([...fileAgents, ...code]), (name) => join(this.#options.dir, `${name}.yaml`), invalid);
    const storedAgents = new Map<string, AgentManifest>();
    for (const [name, parsed] of this.#stored) {
      if (fileAgents.has(name) || code.has(name)) continue;
      if (parsed.manifest !== undefined) storedAgents.set(name, parsed.manifest);
      else invalid.set(name, parsed.issues);
    }
    const stored = checkedAgainst(storedAgents, new Map([...storedAgents, ...files, ...code]), storedFile, invalid);
    this.#valid = { files, stored };
    this.#invalid = invalid;
  }
}

function checkedAgainst(
  agents: ReadonlyMap<string, AgentManifest>,
  everyone: ReadonlyMap<string, AgentManifest>,
  fileOf: (name: string) => string,
  invalid: Map<string, readonly ManifestIssue[]>,
): Map<string, AgentManifest> {
  const valid = new Map<string, AgentManifest>();
  for (const [name, manifest] of agents) {
    const warnings = spawnWiderWarnings(manifest, everyone);
    const problems = [...missingAgentProblems(manifest, everyone), ...unacknowledgedProblems(manifest, warnings)];
    if (problems.length > 0) invalid.set(name, inFile(fileOf(name), problems));
    else valid.set(name, manifest);
  }
  return valid;
}

function issueKey(issue: ManifestIssue): string {
  return `${issue.file}\u0000${issue.path}\u0000${issue.message}`;
}

/** Mount folders inside the data dir are the runtime's to create; folders elsewhere must exist. */
async function createDataDirMounts(manifest: AgentManifest, dataDir: string): Promise<void> {
  for (const { mount } of grantMounts(manifest)) {
    const host = resolve(dataDir, mount.host);
    const inside = relative(resolve(dataDir), host);
    if (!inside.startsWith("..") && !isAbsolute(inside)) await mkdir(host, { recursive: true });
  }
}
