import { ConflictError, NotFoundError, PluginError } from "../../errors.js";
import type { Sandbox, SandboxPlugin } from "../../sandbox/index.js";
import { verifyPluginImports } from "../imports.js";
import { CodeSeal } from "../seal.js";
import { auditedRefusal, recordPluginEvent, RUNTIME_PRINCIPAL, subjectOf, type PluginAuditSink, type PluginSubject } from "./audit.js";
import { checkImports } from "./described.js";
import { PluginBuilds } from "./builds.js";
import { similarNames } from "./lookalike.js";
import type { PluginManifest } from "../manifest.js";
import { permissionDiff, type PermissionDiff } from "./diff.js";
import type { PluginPackage } from "./package.js";
import { nameKey, PluginRegistry, type InstalledPlugin, type InstalledTool } from "./registry.js";
import type { PendingUpgrade } from "./pending.js";
import { pendingToAccept, rejectPending, sameDiff } from "./pending-decisions.js";
import type { SignatureVerdict } from "../signing/index.js";
import { KeyTrust } from "./key-trust.js";
import { reasonOf, readSource, signatureOf, type InstallSourceOptions, type SignatureOptions } from "./signed.js";
export type { InstallSourceOptions, SignatureOptions } from "./signed.js";

/** Who asks for a change, and what they vouch for. */
export interface ChangeOptions {
  /** The runtime's own plugin folders (kept in step with the code). */
  firstParty?: boolean;
  /** Who asked, for the audit: `token:<id>`, `cli:<user>`; default `runtime`. */
  by?: string;
}

export interface InstallOptions extends ChangeOptions, SignatureOptions {
  /** A person confirmed that a name confusable with an installed plugin's is really another plugin. */
  allowSimilarName?: boolean;
}

export interface UpgradeOptions extends InstallSourceOptions, SignatureOptions {
  /** The person accepted the permission diff of a widening upgrade. */
  accept?: boolean;
}

export interface InstallResult {
  plugin: InstalledPlugin;
  action: "installed" | "upgraded" | "unchanged";
  /** For an upgrade: what changed in what the plugin may do. */
  diff?: PermissionDiff;
  /** What was found of the publisher's signature (absent when nothing was installed). */
  signature?: SignatureVerdict;
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
  /** Vouches for compiled builds in the cache: a runtime's is derived from its secret key (default: ephemeral, see seal.ts). */
  seal?: CodeSeal;
  /** Every install, upgrade and removal, allowed or refused, and every refused cached build. */
  audit?: PluginAuditSink;
  /** A secret's value (registry credentials named by `registrySecret`). */
  secretValue?: (name: string) => Promise<string>;
}

/** A plugin loaded into a sandbox, with the tools it was installed with. */
export interface LoadedPlugin {
  installed: InstalledPlugin;
  plugin: SandboxPlugin;
}

/**
 * Installs, upgrades and removes plugins, and loads installed ones. Every install checks the signature (signed.ts) and goes
 * through `PluginBuilds.verify` (builds.ts): the wasm's hash, its real imports against the manifest's capabilities, and
 * `describe` read once in an instance with no grants and checked against the manifest. Every change is one audit record.
 */
export class PluginInstaller {
  readonly registry: PluginRegistry;
  /** The node-local build and compile cache. */
  readonly cacheDir: string;
  readonly #options: PluginInstallerOptions;
  readonly #builds: PluginBuilds;
  /** The publisher keys the operator trusts (trust and revoke audited). */
  readonly keys: KeyTrust;

  constructor(options: PluginInstallerOptions) {
    this.registry = options.registry;
    this.cacheDir = options.cacheDir;
    this.#options = options;
    this.keys = new KeyTrust(options.registry.keys, options.audit);
    this.#builds = new PluginBuilds({
      sandbox: options.sandbox,
      cacheDir: options.cacheDir,
      seal: options.seal ?? CodeSeal.forProcess(),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.audit ? { audit: options.audit } : {}),
    });
  }

  /** Reads an install source (folder, .tgz, .wasm with manifest, https URL with sha256). */
  readPackage(source: string, options: InstallSourceOptions = {}): Promise<PluginPackage> {
    return readSource(source, options, { cacheDir: this.#options.cacheDir, ...(this.#options.onProgress ? { onProgress: this.#options.onProgress } : {}), ...(this.#options.secretValue ? { secretValue: this.#options.secretValue } : {}) });
  }

  /** `readPackage` for an install or upgrade: a source refused on reading (hash mismatch, bad package) is audited. */
  readPackageFor(action: "install" | "upgrade", source: string, options: InstallSourceOptions & { by?: string; name?: string; origin?: string } = {}): Promise<PluginPackage> {
    const { by, name, origin, ...read } = options;
    const subject = () => ({ name: name ?? origin ?? source, origin: origin ?? source, ...(read.sha256 === undefined ? {} : { sha256: normalisedHash(read.sha256) }) });
    return auditedRefusal(this.#options.audit, { action, by: by ?? RUNTIME_PRINCIPAL, subject }, () => this.readPackage(source, read));
  }

  /**
   * Compiles a package's build into the node's cache ahead of its install (the install then finds
   * it sealed there): several can compile at once, while installs run one at a time.
   */
  async prepare(pkg: PluginPackage): Promise<void> {
    await this.#builds.compile(pkg.manifest, pkg.sha256, async () => pkg.bytes);
  }

  /** Records a change refused before the installer saw it (e.g. an upgrade of a name not installed, checked before reading an upload). */
  recordRefusal(action: "install" | "upgrade" | "remove", subject: PluginSubject, by: string, error: unknown): Promise<void> {
    return recordPluginEvent(this.#options.audit, { action, subject, by, error });
  }

  /** Installs a new plugin. A name already installed is refused (use `upgrade`), unless the bytes are identical. */
  async install(source: string, options: InstallSourceOptions & InstallOptions = {}): Promise<InstallResult> {
    const { firstParty, by, allowSimilarName, allowUnsigned, ...read } = options;
    const pkg = await this.readPackageFor("install", source, { ...read, ...(by === undefined ? {} : { by }) });
    return this.installPackage(pkg, { firstParty: firstParty ?? false, ...(by === undefined ? {} : { by }), ...(allowSimilarName === undefined ? {} : { allowSimilarName }), ...(allowUnsigned === undefined ? {} : { allowUnsigned }) });
  }

  async installPackage(pkg: PluginPackage, options: InstallOptions): Promise<InstallResult> {
    const by = options.by ?? RUNTIME_PRINCIPAL;
    const result = await auditedRefusal(this.#options.audit, { action: "install", by, subject: () => subjectOf(pkg) }, async (): Promise<InstallResult> => {
      const existing = await this.registry.get(pkg.manifest.name);
      if (existing) {
        if (existing.blobSha256 === pkg.sha256 && sameManifest(existing.manifest, pkg.manifest)) return { plugin: existing, action: "unchanged" };
        throw new ConflictError(
          "plugin_exists",
          `a plugin named ${existing.name} is already installed (${existing.name}@${existing.version} from ${existing.publisher}); plugins are never replaced silently: use 'clawhive plugin upgrade ${existing.name} <source>'`,
        );
      }
      if (!options.firstParty && !options.allowSimilarName) await this.#refuseLookalike(pkg.manifest.name);
      const signature = await signatureOf(pkg, this.registry.keys, options);
      const { tools, imports } = await this.#builds.verify(pkg);
      await this.registry.put(record(pkg, { tools, imports }, options.firstParty ?? false), pkg.bytes);
      return { plugin: (await this.registry.get(pkg.manifest.name))!, action: "installed", ...(signature === undefined ? {} : { signature }) };
    });
    await recordPluginEvent(this.#options.audit, { action: "install", subject: subjectOf(pkg), by, reason: reasonOf(result) });
    return result;
  }

  /**
   * Replaces installed plugin `name` with the package at `source`. An upgrade that widens what
   * the plugin may do is refused (with the diff) unless `accept` is set.
   */
  async upgrade(name: string, source: string, options: UpgradeOptions & ChangeOptions = {}): Promise<InstallResult> {
    const { accept, firstParty, by, allowUnsigned, ...read } = options;
    const pkg = await this.readPackageFor("upgrade", source, { ...read, name, ...(by === undefined ? {} : { by }) });
    return this.upgradePackage(name, pkg, { accept: accept ?? false, firstParty: firstParty ?? false, ...(by === undefined ? {} : { by }), ...(allowUnsigned === undefined ? {} : { allowUnsigned }) });
  }

  /**
   * Upgrades `name` to its pending upgrade (kept when a widening upgrade was refused for want
   * of acceptance): refused when the installed plugin changed since its diff was made; verified
   * again as any upgrade is, and refused if the diff made now is not the one that was shown.
   */
  async acceptUpgrade(name: string, options: { by?: string } = {}): Promise<InstallResult> {
    const by = options.by ?? RUNTIME_PRINCIPAL;
    const context = { registry: this.registry, audit: this.#options.audit };
    const { pending, pkg } = await pendingToAccept(context, name, by);
    return this.upgradePackage(pending.name, pkg, { accept: true, by, expect: pending });
  }

  /** Drops the pending upgrade of `name` (audited as an upgrade the person refused). */
  rejectUpgrade(name: string, options: { by?: string } = {}): Promise<PendingUpgrade> {
    return rejectPending({ registry: this.registry, audit: this.#options.audit }, name, options.by ?? RUNTIME_PRINCIPAL);
  }

  async upgradePackage(name: string, pkg: PluginPackage, options: ChangeOptions & SignatureOptions & { accept: boolean; expect?: PendingUpgrade }): Promise<InstallResult> {
    const by = options.by ?? RUNTIME_PRINCIPAL;
    const result = await auditedRefusal(this.#options.audit, { action: "upgrade", by, subject: () => subjectOf(pkg) }, async (): Promise<InstallResult> => {
      const existing = await this.registry.get(name);
      if (!existing) throw new NotFoundError(`no plugin named ${name} is installed; use 'clawhive plugin install <source>'`);
      if (nameKey(pkg.manifest.name) !== nameKey(existing.name)) {
        throw new PluginError("plugin_name_mismatch", `the package is plugin ${pkg.manifest.name}, not ${existing.name}; an upgrade keeps the name`);
      }
      if (existing.blobSha256 === pkg.sha256 && sameManifest(existing.manifest, pkg.manifest)) return { plugin: existing, action: "unchanged" };
      if (pkg.manifest.version === existing.version && !options.firstParty) {
        throw new ConflictError("plugin_version_exists", `${existing.name}@${existing.version} is installed with other content; a changed plugin needs a new version`);
      }
      // A pending upgrade's signature was decided when it was kept (its signature file is not).
      const signature = options.expect === undefined ? await signatureOf(pkg, this.registry.keys, options) : undefined;
      const { tools, imports } = await this.#builds.verify(pkg);
      const diff = permissionDiff(view(existing.manifest, existing.tools), view(pkg.manifest, tools));
      if (options.expect !== undefined) sameDiff(options.expect, diff.lines);
      if (diff.widening && !options.accept) throw new UpgradeNeedsAcceptance(existing.name, diff, await this.#keepPending(existing, pkg, { diff, by }));
      await this.registry.put(record(pkg, { tools, imports }, (options.firstParty ?? false) || existing.firstParty), pkg.bytes, existing);
      // Whatever was pending was compared with the version just replaced.
      await this.registry.pending.remove(name);
      return { plugin: (await this.registry.get(name))!, action: "upgraded", diff, ...(signature === undefined ? {} : { signature }) };
    });
    await recordPluginEvent(this.#options.audit, { action: "upgrade", subject: subjectOf(pkg), by, reason: reasonOf(result) });
    return result;
  }

  /** Removes plugin `name`; refused while an unfinished run uses it. */
  async remove(name: string, options: { by?: string } = {}): Promise<InstalledPlugin> {
    const by = options.by ?? RUNTIME_PRINCIPAL;
    let subject: PluginSubject = { name };
    const removed = await auditedRefusal(this.#options.audit, { action: "remove", by, subject: () => subject }, async () => {
      const existing = await this.registry.get(name);
      if (!existing) throw new NotFoundError(`no plugin named ${name} is installed`);
      subject = installedSubject(existing);
      const runs = (await this.#options.runsUsing?.(existing.name)) ?? [];
      if (runs.length > 0) {
        throw new ConflictError(
          "plugin_in_use",
          `plugin ${existing.name} is used by ${runs.length} unfinished run(s): ${runs.slice(0, 5).join(", ")}${runs.length > 5 ? ", …" : ""}; remove it once they end`,
        );
      }
      await this.registry.remove(existing.name);
      return existing;
    });
    await recordPluginEvent(this.#options.audit, { action: "remove", subject, by, reason: "removed" });
    return removed;
  }

  /**
   * An installed plugin compiled (from the node-local cache, or from its blob in the store) and
   * loaded into `sandbox`. A cached build is used only under this node's seal, and its files are
   * checked against the sealed record as they are read (once per load); a build that fails
   * either is refused, audited, and made again from the store's blob.
   */
  async load(installed: InstalledPlugin, sandbox: Sandbox = this.#options.sandbox): Promise<LoadedPlugin> {
    // The blob (~12 MB for a component, base64 over a libSQL server) is read from the store only to build.
    const compile = (rebuild: boolean) => this.#builds.compile(installed.manifest, installed.blobSha256, () => this.registry.blob(installed.blobSha256), rebuild, true);
    const artifact = await compile(false);
    // A component's imports were read from its blob at install (they are a function of its
    // bytes, and the artifact is of those bytes): checked again against the manifest, not
    // parsed again. Older installs, and Extism modules (cheap to read), are read from the blob.
    if (installed.format === "component" && installed.imports !== null) checkImports(installed.name, installed.imports, installed.manifest.capabilities, artifact.glueImports);
    else await verifyPluginImports(artifact);
    return { installed, plugin: (await this.#builds.sandboxLoad(sandbox, artifact, () => compile(true))).plugin };
  }

  /**
   * Keeps a refused widening upgrade for a person to decide on later. When it cannot be kept
   * (the store refused the write) the refusal stands all the same: the caller can only send it
   * again with acceptance.
   */
  async #keepPending(existing: InstalledPlugin, pkg: PluginPackage, input: { diff: PermissionDiff; by: string }): Promise<PendingUpgrade | undefined> {
    const base = { version: existing.version, sha256: existing.blobSha256, updatedAt: existing.updatedAt };
    const pending = { name: existing.name, version: pkg.manifest.version, manifestText: pkg.manifestText, blobSha256: pkg.sha256, origin: pkg.origin, diff: input.diff, base, proposedBy: input.by };
    return this.registry.pending.put(pending, pkg.bytes).catch(() => undefined);
  }

  async #refuseLookalike(name: string): Promise<void> {
    const similar = similarNames(name, (await this.registry.list()).map((p) => p.name));
    if (similar.length === 0) return;
    throw new ConflictError(
      "plugin_name_similar",
      `plugin name ${name} is confusable with the installed plugin ${similar.join(", ")}: one could pass for the other in an agent's plugin list or an approval; ` +
        `if it really is another plugin, install it with --allow-similar-name (API: allow_similar_name: true)`,
    );
  }
}

/** A widening upgrade without acceptance: carries the diff for the CLI and the API to show. */
export class UpgradeNeedsAcceptance extends ConflictError {
  readonly diff: PermissionDiff;
  /** The upgrade kept for a later decision (undefined when it could not be kept). */
  readonly pending: PendingUpgrade | undefined;
  constructor(name: string, diff: PermissionDiff, pending?: PendingUpgrade) {
    const later = pending === undefined ? "" : `, or later: 'clawhive plugin accept ${name}' (it is kept as a pending upgrade until ${new Date(pending.expiresAt).toISOString()})`;
    super("upgrade_needs_acceptance", `upgrading ${name} widens what it may do:\n  ${diff.lines.join("\n  ")}\naccept the new permissions explicitly (--accept) to upgrade${later}`);
    this.diff = diff;
    this.pending = pending;
  }
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

function installedSubject(plugin: InstalledPlugin): PluginSubject {
  return { name: plugin.name, version: plugin.version, sha256: plugin.blobSha256, publisher: plugin.publisher, origin: plugin.origin };
}

function normalisedHash(text: string): string | null {
  const hash = text.trim().toLowerCase().replace(/^sha256[:-]/, "");
  return /^[0-9a-f]{64}$/.test(hash) ? hash : null;
}
