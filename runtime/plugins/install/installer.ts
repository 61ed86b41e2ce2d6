import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { ConflictError, NotFoundError, PluginError } from "../../errors.js";
import { toolRisk } from "../../policy/engine.js";
import type { Sandbox, SandboxPlugin, ToolDescriptor } from "../../sandbox/index.js";
import { readVerifiedFiles, type PluginArtifact } from "../artifact.js";
import { compilePlugin } from "../compile.js";
import { importProblems, verifyPluginImports } from "../imports.js";
import type { PluginManifest } from "../manifest.js";
import { permissionDiff, type PermissionDiff } from "./diff.js";
import { readPackage, type PluginPackage, type ReadPackageOptions } from "./package.js";
import { nameKey, PluginRegistry, type InstalledPlugin, type InstalledTool } from "./registry.js";
import { compileToolSchema, parseToolSchema, ToolSchemaError } from "../../json/index.js";

export type InstallSourceOptions = Omit<ReadPackageOptions, "cacheDir" | "onProgress">;

export interface UpgradeOptions extends InstallSourceOptions {
  /** The person accepted the permission diff of a widening upgrade. */
  accept?: boolean;
}

export interface InstallResult {
  plugin: InstalledPlugin;
  action: "installed" | "upgraded" | "unchanged";
  /** For an upgrade: what changed in what the plugin may do. */
  diff?: PermissionDiff;
}

export interface PluginInstallerOptions {
  registry: PluginRegistry;
  /** Where `describe` is read (in an unbound instance: every host call refused). */
  sandbox: Sandbox;
  /** Node-local build and compile cache. */
  cacheDir: string;
  onProgress?: (line: string) => void;
  /** Ids of unfinished runs that use plugin `name` (a removal waits for them). */
  runsUsing?: (name: string) => Promise<string[]>;
}

/** A plugin loaded into a sandbox, with the tools it was installed with. */
export interface LoadedPlugin {
  installed: InstalledPlugin;
  plugin: SandboxPlugin;
}

/**
 * Installs, upgrades and removes plugins, and loads installed ones. Every install goes through
 * `#verify`: the wasm's hash, its real imports against the manifest's capabilities, and
 * `describe` read once in an instance with no grants and checked against the manifest.
 */
export class PluginInstaller {
  readonly registry: PluginRegistry;
  /** The node-local build and compile cache. */
  readonly cacheDir: string;
  readonly #options: PluginInstallerOptions;

  constructor(options: PluginInstallerOptions) {
    this.registry = options.registry;
    this.cacheDir = options.cacheDir;
    this.#options = options;
  }

  /** Reads an install source (folder, .tgz, .wasm with manifest, https URL with sha256). */
  readPackage(source: string, options: InstallSourceOptions = {}): Promise<PluginPackage> {
    return readPackage(source, { ...options, cacheDir: this.#options.cacheDir, ...(this.#options.onProgress ? { onProgress: this.#options.onProgress } : {}) });
  }

  /** Installs a new plugin. A name already installed is refused (use `upgrade`), unless the bytes are identical. */
  async install(source: string, options: InstallSourceOptions & { firstParty?: boolean } = {}): Promise<InstallResult> {
    const pkg = await this.readPackage(source, options);
    return this.installPackage(pkg, { firstParty: options.firstParty ?? false });
  }

  async installPackage(pkg: PluginPackage, options: { firstParty: boolean }): Promise<InstallResult> {
    const existing = await this.registry.get(pkg.manifest.name);
    if (existing) {
      if (existing.blobSha256 === pkg.sha256 && sameManifest(existing.manifest, pkg.manifest)) return { plugin: existing, action: "unchanged" };
      throw new ConflictError(
        "plugin_exists",
        `a plugin named ${existing.name} is already installed (${existing.name}@${existing.version} from ${existing.publisher}); plugins are never replaced silently: use 'clawhive plugin upgrade ${existing.name} <source>'`,
      );
    }
    const { tools, imports } = await this.#verify(pkg);
    await this.registry.put(record(pkg, { tools, imports }, options.firstParty), pkg.bytes);
    return { plugin: (await this.registry.get(pkg.manifest.name))!, action: "installed" };
  }

  /**
   * Replaces installed plugin `name` with the package at `source`. An upgrade that widens what
   * the plugin may do is refused (with the diff) unless `accept` is set.
   */
  async upgrade(name: string, source: string, options: UpgradeOptions & { firstParty?: boolean } = {}): Promise<InstallResult> {
    const pkg = await this.readPackage(source, options);
    return this.upgradePackage(name, pkg, { accept: options.accept ?? false, firstParty: options.firstParty ?? false });
  }

  async upgradePackage(name: string, pkg: PluginPackage, options: { accept: boolean; firstParty: boolean }): Promise<InstallResult> {
    const existing = await this.registry.get(name);
    if (!existing) throw new NotFoundError(`no plugin named ${name} is installed; use 'clawhive plugin install <source>'`);
    if (nameKey(pkg.manifest.name) !== nameKey(existing.name)) {
      throw new PluginError("plugin_name_mismatch", `the package is plugin ${pkg.manifest.name}, not ${existing.name}; an upgrade keeps the name`);
    }
    if (existing.blobSha256 === pkg.sha256 && sameManifest(existing.manifest, pkg.manifest)) return { plugin: existing, action: "unchanged" };
    if (pkg.manifest.version === existing.version && !options.firstParty) {
      throw new ConflictError("plugin_version_exists", `${existing.name}@${existing.version} is installed with other content; a changed plugin needs a new version`);
    }
    const { tools, imports } = await this.#verify(pkg);
    const diff = permissionDiff(view(existing.manifest, existing.tools), view(pkg.manifest, tools));
    if (diff.widening && !options.accept) {
      throw new UpgradeNeedsAcceptance(existing.name, diff);
    }
    await this.registry.put(record(pkg, { tools, imports }, options.firstParty || existing.firstParty), pkg.bytes, existing);
    return { plugin: (await this.registry.get(name))!, action: "upgraded", diff };
  }

  /** Removes plugin `name`; refused while an unfinished run uses it. */
  async remove(name: string): Promise<InstalledPlugin> {
    const existing = await this.registry.get(name);
    if (!existing) throw new NotFoundError(`no plugin named ${name} is installed`);
    const runs = (await this.#options.runsUsing?.(existing.name)) ?? [];
    if (runs.length > 0) {
      throw new ConflictError(
        "plugin_in_use",
        `plugin ${existing.name} is used by ${runs.length} unfinished run(s): ${runs.slice(0, 5).join(", ")}${runs.length > 5 ? ", …" : ""}; remove it once they end`,
      );
    }
    await this.registry.remove(existing.name);
    return existing;
  }

  /**
   * An installed plugin compiled (from the node-local cache, or from its blob in the store) and
   * loaded into `sandbox`; the cache's files are verified against their hashes on the way.
   */
  async load(installed: InstalledPlugin, sandbox: Sandbox = this.#options.sandbox): Promise<LoadedPlugin> {
    const artifact = await this.#compile(installed.manifest, installed.blobSha256, () => this.registry.blob(installed.blobSha256));
    if (artifact.blobSha256 !== installed.blobSha256) throw new PluginError("artifact_tampered", `plugin ${installed.name}: the compiled cache is not of the installed blob; remove the cached build`);
    // A component's imports were read from its blob at install (they are a function of its
    // bytes, and the artifact is of those bytes): checked again against the manifest, not
    // parsed again. Older installs, and Extism modules (cheap to read), are read from the blob.
    if (installed.format === "component" && installed.imports !== null) {
      const problems = importProblems(installed.imports, installed.manifest.capabilities);
      if (problems.length > 0) throw new PluginError("imports_not_declared", `plugin ${installed.name}: its component imports what its manifest does not declare:\n  ${problems.join("\n  ")}`);
    } else {
      await verifyImports(artifact);
    }
    return { installed, plugin: await sandbox.load(artifact) };
  }

  async #compile(manifest: PluginManifest, hash: string, bytes: () => Promise<Uint8Array>): Promise<PluginArtifact> {
    return compilePlugin({ manifest, sha256: hash, bytes: await bytes() }, { cacheDir: this.#options.cacheDir, ...(this.#options.onProgress ? { onProgress: this.#options.onProgress } : {}) });
  }

  /** Hash, imports and `describe`: the tools the package really has, checked against its manifest. */
  async #verify(pkg: PluginPackage): Promise<{ tools: InstalledTool[]; imports: string[] }> {
    const artifact = await this.#compile(pkg.manifest, pkg.sha256, async () => pkg.bytes);
    const described = await readDescribed(artifact);
    if (described) {
      // The compiled files are checked as a load would (a tampered cache is refused here too).
      await readVerifiedFiles(artifact);
      return { tools: checkDescriptors(pkg.manifest, described.tools), imports: await cachedImports(artifact, described.imports) };
    }
    const imports = await verifyImports(artifact);
    const plugin = await this.#options.sandbox.load(artifact);
    try {
      const descriptors = await this.#options.sandbox.describe(plugin);
      await writeDescribed(artifact, { tools: descriptors, imports });
      return { tools: checkDescriptors(pkg.manifest, descriptors), imports };
    } finally {
      // Installing compiles the plugin only to read describe: a runtime compiles it again when
      // a run first uses it, rather than holding every installed plugin's code from now on.
      this.#options.sandbox.unload(plugin);
    }
  }
}

/** A widening upgrade without acceptance: carries the diff for the CLI and the API to show. */
export class UpgradeNeedsAcceptance extends ConflictError {
  readonly diff: PermissionDiff;
  constructor(name: string, diff: PermissionDiff) {
    super("upgrade_needs_acceptance", `upgrading ${name} widens what it may do:\n  ${diff.lines.join("\n  ")}\naccept the new permissions explicitly (--accept) to upgrade`);
    this.diff = diff;
  }
}

function verifyImports(artifact: PluginArtifact): Promise<string[]> {
  return verifyPluginImports(artifact);
}

/** Tool descriptors checked against the manifest: declared names, JSON Schemas, capabilities ⊆ manifest. */
export function checkDescriptors(manifest: PluginManifest, descriptors: readonly ToolDescriptor[]): InstalledTool[] {
  const seen = new Set<string>();
  return descriptors.map((d) => {
    if (!Object.hasOwn(manifest.tools, d.name)) throw new PluginError("tool_undeclared", `plugin ${manifest.name}: tool ${d.name} is not declared in plugin.json`);
    if (seen.has(d.name)) throw new PluginError("tool_duplicate", `plugin ${manifest.name}: tool ${d.name} is described twice`);
    seen.add(d.name);
    // Bounded and compiled here, so a schema the host cannot validate with refuses the install.
    let inputSchema: unknown;
    try {
      inputSchema = parseToolSchema(d.inputSchema, { tool: d.name });
      compileToolSchema(inputSchema, { tool: d.name });
    } catch (error) {
      if (!(error instanceof ToolSchemaError)) throw error;
      throw new PluginError("tool_schema_invalid", `plugin ${manifest.name}: ${error.message}`);
    }
    const undeclared = d.capabilities.filter((c) => !manifest.capabilities.includes(c));
    if (undeclared.length > 0) throw new PluginError("capability_undeclared", `plugin ${manifest.name}: tool ${d.name} uses ${undeclared.join(", ")}, not declared in plugin.json`);
    return { name: d.name, description: d.description, inputSchema, capabilities: [...d.capabilities], risk: toolRisk({ plugin: manifest, name: d.name, capabilities: d.capabilities }).risk };
  });
}

function record(pkg: PluginPackage, verified: { tools: InstalledTool[]; imports: string[] }, firstParty: boolean): Omit<InstalledPlugin, "installedAt" | "updatedAt" | "size"> {
  const { manifest } = pkg;
  return { name: manifest.name, version: manifest.version, format: manifest.format, publisher: manifest.publisher, manifest, blobSha256: pkg.sha256, tools: verified.tools, imports: verified.imports, origin: pkg.origin, firstParty };
}

function view(manifest: PluginManifest, tools: readonly InstalledTool[]) {
  return { publisher: manifest.publisher, format: manifest.format, capabilities: manifest.capabilities, tools };
}

function sameManifest(a: PluginManifest, b: PluginManifest): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * What `describe` said for this exact artifact, read on this node before (kept beside the
 * compiled files, whose key covers the blob and the manifest): installing the same bytes into
 * another store (each test's, each new data dir's) need not instantiate the plugin again.
 * Checked against the manifest like a fresh answer; a record that does not parse is ignored.
 */
async function readDescribed(artifact: PluginArtifact): Promise<{ tools: ToolDescriptor[]; imports: string[] } | undefined> {
  try {
    const record = JSON.parse(await readFile(join(artifact.dir, DESCRIBED), "utf8")) as { key?: unknown };
    if (record.key !== artifact.key) return undefined;
    const parsed = v.safeParse(DescribedSchema, record);
    return parsed.success ? { tools: parsed.output.tools, imports: parsed.output.imports } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A component's imports as read from its blob before (the check against the manifest runs
 * again, it is cheap); an Extism module's are read again (cheap too, and checked differently).
 */
async function cachedImports(artifact: PluginArtifact, imports: string[]): Promise<string[]> {
  if (artifact.format !== "component") return verifyImports(artifact);
  const problems = importProblems(imports, artifact.manifest.capabilities);
  if (problems.length > 0) throw new PluginError("imports_not_declared", `plugin ${artifact.manifest.name}: its component imports what its manifest does not declare:\n  ${problems.join("\n  ")}`);
  return imports;
}

async function writeDescribed(artifact: PluginArtifact, described: { tools: readonly ToolDescriptor[]; imports: readonly string[] }): Promise<void> {
  const file = join(artifact.dir, DESCRIBED);
  const staging = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(staging, JSON.stringify({ key: artifact.key, ...described }));
    await rename(staging, file);
  } catch {
    await rm(staging, { force: true }).catch(() => undefined);
  }
}

const DESCRIBED = "described.json";
const DescribedSchema = v.object({
  key: v.string(),
  imports: v.array(v.string()),
  tools: v.array(
    v.strictObject({
      name: v.string(),
      description: v.string(),
      inputSchema: v.string(),
      capabilities: v.array(v.string()),
      risk: v.picklist(["safe", "guarded", "unsafe"]),
    }),
  ),
});
