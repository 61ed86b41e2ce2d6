/**
 * A plugin's build: compiled (from the node-local cache under this node's seal, or afresh),
 * loaded into a sandbox, and verified at install: its hash, its real imports against the
 * manifest's capabilities, and `describe` read in an instance with no grants. A cached build
 * that fails its seal or hash is refused, audited, and made again.
 */
import { PluginError } from "../../errors.js";
import type { Sandbox, SandboxPlugin } from "../../sandbox/index.js";
import { readVerifiedFiles, type PluginArtifact } from "../artifact.js";
import { compilePlugin } from "../compile.js";
import { verifyPluginImports } from "../imports.js";
import type { CodeSeal } from "../seal.js";
import type { PluginManifest } from "../manifest.js";
import { recordPluginEvent, RUNTIME_PRINCIPAL, type PluginAuditSink } from "./audit.js";
import { cachedImports, checkDescriptors, checkImports, readDescribed, writeDescribed } from "./described.js";
import { checkToolsContract, typedDescriptors } from "./typed.js";
import type { PluginPackage } from "./package.js";
import type { InstalledTool } from "./registry.js";

export interface PluginBuildsOptions {
  sandbox: Sandbox;
  cacheDir: string;
  seal: CodeSeal;
  onProgress?: (line: string) => void;
  audit?: PluginAuditSink;
}

export class PluginBuilds {
  readonly #options: PluginBuildsOptions;
  readonly #seal: CodeSeal;

  constructor(options: PluginBuildsOptions) {
    this.#options = options;
    this.#seal = options.seal;
  }

  /** `sandbox.load`, which reads and hashes the files: one that fails its hash is refused, audited and built again. */
  async sandboxLoad(sandbox: Sandbox, artifact: PluginArtifact, rebuild: () => Promise<PluginArtifact>): Promise<{ plugin: SandboxPlugin; artifact: PluginArtifact }> {
    try {
      return { plugin: await sandbox.load(artifact), artifact };
    } catch (error) {
      if ((error as { code?: unknown }).code !== "artifact_tampered") throw error;
      await this.refusedBuild(artifact.manifest, artifact.blobSha256, error);
      const rebuilt = await rebuild();
      return { plugin: await sandbox.load(rebuilt), artifact: rebuilt };
    }
  }

  /** `lazy`: `bytes` is read only when no sealed build of `hash` is cached (a load of an installed blob). */
  async compile(manifest: PluginManifest, hash: string, bytes: () => Promise<Uint8Array>, rebuild = false, lazy = false): Promise<PluginArtifact> {
    return compilePlugin(
      { manifest, sha256: hash, bytes: lazy ? bytes : await bytes() },
      {
        cacheDir: this.#options.cacheDir,
        seal: this.#seal,
        rebuild,
        onRefused: (refused) => this.refusedBuild(manifest, hash, new PluginError(refused.code, refused.message)),
        ...(this.#options.onProgress ? { onProgress: this.#options.onProgress } : {}),
      },
    );
  }

  /** A cached build refused (then made again): audited as a refused load. */
  async refusedBuild(manifest: PluginManifest, hash: string, error: unknown): Promise<void> {
    this.#options.onProgress?.(`${manifest.name}: ${(error as Error).message}`);
    const subject = { name: manifest.name, version: manifest.version, sha256: hash, publisher: manifest.publisher };
    await recordPluginEvent(this.#options.audit, { action: "load", subject, by: RUNTIME_PRINCIPAL, error });
  }

  /** Hash, imports and `describe`: the tools the package really has, checked against its manifest. */
  async verify(pkg: PluginPackage): Promise<{ tools: InstalledTool[]; imports: string[] }> {
    if (pkg.manifest.contract === "typed") return this.#verifyTyped(pkg);
    if (pkg.manifest.format === "component") checkToolsContract(pkg.manifest, pkg.bytes);
    let artifact = await this.compile(pkg.manifest, pkg.sha256, async () => pkg.bytes);
    const described = await readDescribed(artifact, this.#seal);
    if (described) {
      try {
        // The compiled files are checked as a load would (a tampered cache is refused here too).
        await readVerifiedFiles(artifact);
        return { tools: checkDescriptors(pkg.manifest, described.tools), imports: await cachedImports(artifact, described.imports) };
      } catch (error) {
        if ((error as { code?: unknown }).code !== "artifact_tampered") throw error;
        await this.refusedBuild(pkg.manifest, pkg.sha256, error);
        artifact = await this.compile(pkg.manifest, pkg.sha256, async () => pkg.bytes, true);
      }
    }
    const imports = await verifyPluginImports(artifact);
    const loaded = await this.sandboxLoad(this.#options.sandbox, artifact, () => this.compile(pkg.manifest, pkg.sha256, async () => pkg.bytes, true));
    const plugin = loaded.plugin;
    try {
      const descriptors = await this.#options.sandbox.describe(plugin);
      await writeDescribed(loaded.artifact, this.#seal, { tools: descriptors, imports });
      return { tools: checkDescriptors(pkg.manifest, descriptors), imports };
    } finally {
      // Installing compiles the plugin only to read describe: a runtime compiles it again when
      // a run first uses it, rather than holding every installed plugin's code from now on.
      this.#options.sandbox.unload(plugin);
    }
  }

  /**
   * A typed component: its tools from its WIT types (refused when one cannot map to JSON),
   * checked against the manifest like described tools; its imports checked; then instantiated
   * once in an unbound instance, so a component that cannot start is refused at install.
   */
  async #verifyTyped(pkg: PluginPackage): Promise<{ tools: InstalledTool[]; imports: string[] }> {
    const { descriptors, imports } = typedDescriptors(pkg.manifest, pkg.bytes);
    const tools = checkDescriptors(pkg.manifest, descriptors);
    const artifact = await this.compile(pkg.manifest, pkg.sha256, async () => pkg.bytes);
    checkImports(pkg.manifest.name, imports, pkg.manifest.capabilities, artifact.glueImports);
    const loaded = await this.sandboxLoad(this.#options.sandbox, artifact, () => this.compile(pkg.manifest, pkg.sha256, async () => pkg.bytes, true));
    try {
      await this.#options.sandbox.describe(loaded.plugin);
    } finally {
      this.#options.sandbox.unload(loaded.plugin);
    }
    return { tools, imports };
  }
}
