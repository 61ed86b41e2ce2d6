import { readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { InvalidInputError, PluginError } from "../errors.js";
import { sha256, type PluginArtifact } from "./artifact.js";
import { bundleWithInputs } from "./bundle.js";
import { recordBundleInputs, recordedBundleSha } from "./bundle-inputs.js";
import { compilePlugin } from "./compile.js";
import { withBuildChild, type BuildTier } from "./build-child.js";
import { UNSHARED, type BuildReads } from "./build-reads.js";
import { mkdirWithin } from "./work-folders.js";
import type { CodeSeal } from "./seal.js";
import { pluginRoot, readInside } from "./confine.js";
import { publishDir } from "./publish.js";
import { parsePluginManifest, type PluginManifest } from "./manifest.js";
import { PROJECT_ROOT } from "./locations.js";
import { packageDir, packageVersion } from "./package-dir.js";
import { assemblyScriptSources, SDK_IN_JOB } from "./assemblyscript-sources.js";

const WIT_DIR = join(PROJECT_ROOT, "wit");
/** WASI 0.2's WIT as jco ships it (the version componentize-js's engine imports). */
/** WASI 0.2.12's own WIT packages, kept in the project (wit/wasi/README.md). */
const WASI_WIT_DIR = join(WIT_DIR, "wasi");
// sockets only because wasi:cli's worlds name it; an import of it is refused at install.
const WASI_WIT_PACKAGES = ["io", "clocks", "random", "cli", "filesystem", "sockets"];
/** Bump when the build recipe changes, so old cache entries stop matching. */
const RECIPE = "4";
/** The same for AssemblyScript builds (assemblyscript-build.ts). */
const AS_RECIPE = "as-1";
const BUILD_RECORD = "build.json";
const COMPONENT = "component.wasm";

export { SDK_ALIASES } from "./bundle.js";
export { patchGlue } from "./build-child.js";

export interface BuildOptions {
  /** Where builds are cached, one folder per content key. */
  cacheDir: string;
  /** Called with one line per build phase, for progress output. */
  onProgress?: (line: string) => void;
  /** Also report the bundle step and cache hits, not only componentizing (`clawhive plugin build`). */
  verbose?: boolean;
  /** What vouches for compiled builds in the cache (`buildPlugin`); see compile.ts. */
  seal?: CodeSeal;
  /**
   * The V8 tier an AssemblyScript build's child runs (build-child.ts): `baseline` by default, the
   * same bytes as `optimizing` for less CPU.
   */
  assemblyScriptTier?: BuildTier;
  /** The project's own inputs (SDK, WIT) read once for several builds (build-reads.ts). */
  reads?: BuildReads;
}

/** A plugin built from source: its manifest and the component's bytes. */
export interface BuiltPlugin {
  manifest: PluginManifest;
  manifestText: string;
  bytes: Uint8Array;
  sha256: string;
}

/**
 * Builds the component of the plugin in `pluginDir` (TypeScript/JavaScript source bundled and
 * componentized, or AssemblyScript compiled; its WIT world), unless a build with the same content
 * key is cached. The key hashes everything the output depends on: source, manifest, WIT, tool versions.
 */
export async function buildComponent(pluginDir: string, options: BuildOptions): Promise<BuiltPlugin> {
  const progress = options.onProgress ?? (() => {});
  const detail = options.verbose ? progress : () => {};
  const { manifest, manifestText, bundle, sourceSha, witFiles, assemblyScript, key, outDir } = await planBuild(pluginDir, options);
  const cached = await readBuilt(outDir, key, { manifest, manifestText });
  if (cached) {
    detail(`${manifest.name}: component up to date (cached build ${key.slice(0, 12)}, ${size(cached.bytes.length)})`);
    return cached;
  }
  progress(assemblyScript ? `${manifest.name}: compiling AssemblyScript` : `${manifest.name}: componentizing (this takes a few seconds)`);
  const started = Date.now();
  const source = assemblyScript ? "" : await bundle();
  // Inputs as recorded yet a different bundle (a changed bundler): key the build on what it is.
  if (!assemblyScript && sha256(source) !== sourceSha) return buildComponent(pluginDir, options);
  return withBuildChild(async (work, run) => {
    const write = async (name: string, text: string) => {
      await mkdirWithin(work, dirname(name));
      await writeFile(join(work, name), text);
    };
    for (const [name, text] of witFiles) await write(join("wit", name), text);
    if (assemblyScript) {
      for (const [name, text] of assemblyScript.files) await write(name, text);
      await run("assemblyscript", manifest.world, assemblyScript.entry, SDK_IN_JOB);
    } else {
      await writeFile(join(work, "plugin.js"), source);
      // A plugin that declares a WASI grant is built with WASI on: clawhive serves it per instance.
      await run("componentize", manifest.world, ...(manifest.wasi ? ["wasi"] : []));
    }
    const bytes = new Uint8Array(await readFile(join(work, "out", COMPONENT)));
    const hash = sha256(bytes);
    await writeFile(join(work, "out", BUILD_RECORD), JSON.stringify({ key, sha256: hash }));
    await publishDir(join(work, "out"), outDir);
    progress(`${manifest.name}: component built in ${((Date.now() - started) / 1000).toFixed(1)} s (${size(bytes.length)})`);
    return { manifest, manifestText, bytes, sha256: hash };
  }, assemblyScript ? { tier: options.assemblyScriptTier ?? "baseline" } : {});
}

/**
 * The sha256 of the component a build of `pluginDir` would produce, when that build is cached
 * (without reading the component): how a runtime start sees its own plugins are up to date.
 */
export async function cachedBuildSha(pluginDir: string, options: BuildOptions): Promise<{ name: string; sha256: string } | undefined> {
  const { manifest, key, outDir } = await planBuild(pluginDir, options);
  try {
    const record = JSON.parse(await readFile(join(outDir, BUILD_RECORD), "utf8")) as { key?: unknown; sha256?: unknown };
    return record.key === key && typeof record.sha256 === "string" ? { name: manifest.name, sha256: record.sha256 } : undefined;
  } catch {
    return undefined;
  }
}

/** Manifest, bundled source, WIT and the content key of a build of `pluginDir`. */
async function planBuild(pluginDir: string, options: BuildOptions) {
  const progress = options.onProgress ?? (() => {});
  const detail = options.verbose ? progress : () => {};
  const root = await pluginRoot(pluginDir);
  const manifestFile = join(pluginDir, "plugin.json");
  const manifestText = await readInside(root, "plugin.json", { label: manifestFile });
  const manifest = parsePluginManifest(manifestText, manifestFile);
  if (manifest.format !== "component") throw new PluginError("build_unsupported", `${manifestFile}: format ${manifest.format} plugins are built by their own toolchain; install their plugin.wasm`);
  if (!manifest.world) throw new PluginError("build_failed", `${manifestFile}: world: name the WIT world in wit/ that the plugin targets`);
  const reads = options.reads ?? UNSHARED;
  const witFiles = await collectWit(root, pluginDir, { wasi: manifest.wasi !== undefined, reads });
  if (manifest.language === "assemblyscript") {
    // Its config is the one WASI interface it may import (wasi:config/store, served from the
    // plugin's defaults and the agent's grant like a component's); everything else is clawhive:host.
    if (manifest.wasi && Object.keys(manifest.wasi.env ?? {}).length > 0) {
      throw new PluginError("build_unsupported", `${manifestFile}: wasi.env: an AssemblyScript plugin has no WASI environment; it reaches the host through clawhive:host, and reads wasi.config through wasi:config/store`);
    }
    const assemblyScript = await assemblyScriptSources(root, { name: manifest.name, source: manifest.source, label: pluginDir, reads });
    const key = sha256(
      JSON.stringify({
        recipe: AS_RECIPE,
        tools: toolVersions({ asc: "assemblyscript", wasmTools: "@bytecodealliance/jco-transpile" }),
        manifest: sha256(manifestText),
        source: assemblyScript.files.map(([n, t]) => [n, sha256(t)]),
        wit: witFiles.map(([n, t]) => [n, sha256(t)]),
      }),
    );
    const outDir = join(options.cacheDir, "source", `${manifest.name}-${key.slice(0, 16)}`);
    const none = async (): Promise<string> => "";
    return { manifest: manifest as PluginManifest & { world: string }, manifestText, bundle: none, sourceSha: "", witFiles, assemblyScript, key, outDir };
  }
  // The bundle is made only when its inputs changed since the last one (bundle-inputs.ts):
  // otherwise its recorded sha256 keys the build, and a cached build needs no bundle at all.
  let bundled: string | undefined;
  const bundle = async (): Promise<string> => {
    if (bundled !== undefined) return bundled;
    detail(`${manifest.name}: bundling ${manifest.source}`);
    const bundleStarted = Date.now();
    const { text, inputs } = await bundleWithInputs(root, manifest.source);
    detail(`${manifest.name}: bundled ${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB of JavaScript in ${((Date.now() - bundleStarted) / 1000).toFixed(2)} s`);
    await recordBundleInputs(options.cacheDir, root, manifest.source, text, inputs);
    return (bundled = text);
  };
  const recorded = await recordedBundleSha(options.cacheDir, root, manifest.source);
  const sourceSha = recorded ?? sha256(await bundle());
  const key = sha256(
    JSON.stringify({ recipe: RECIPE, tools: componentizeVersions(), manifest: sha256(manifestText), source: sourceSha, wit: witFiles.map(([n, t]) => [n, sha256(t)]) }),
  );
  const outDir = join(options.cacheDir, "source", `${manifest.name}-${key.slice(0, 16)}`);
  return { manifest: manifest as PluginManifest & { world: string }, manifestText, bundle, sourceSha, witFiles, assemblyScript: undefined, key, outDir };
}

/** Builds from source and compiles: the artifact a sandbox loads (tests and benchmarks). */
export async function buildPlugin(pluginDir: string, options: BuildOptions): Promise<PluginArtifact> {
  const built = await buildComponent(pluginDir, options);
  return compilePlugin(built, options);
}

async function readBuilt(dir: string, key: string, manifest: Pick<BuiltPlugin, "manifest" | "manifestText">): Promise<BuiltPlugin | undefined> {
  try {
    const record = JSON.parse(await readFile(join(dir, BUILD_RECORD), "utf8")) as { key?: unknown; sha256?: unknown };
    if (record.key !== key) return undefined;
    const bytes = new Uint8Array(await readFile(join(dir, COMPONENT)));
    // A cached build whose bytes changed is rebuilt rather than trusted.
    if (sha256(bytes) !== record.sha256) return undefined;
    return { ...manifest, bytes, sha256: record.sha256 };
  } catch {
    return undefined;
  }
}


/**
 * The plugin's own world at the root, clawhive's packages under deps/ (WIT's package layout).
 * The plugin's files are read only from inside its folder, as its source is.
 */
async function collectWit(root: string, pluginDir: string, options: { wasi: boolean; reads: Pick<BuildReads, "text" | "listing"> }): Promise<Array<[string, string]>> {
  const { wasi, reads } = options;
  const files: Array<[string, string]> = [];
  const witNames = async (from: string, label: string) => {
    try {
      return (await readdir(from)).filter((n) => n.endsWith(".wit")).sort();
    } catch (cause) {
      throw new InvalidInputError(`${label}: no wit/ folder; it holds the world the plugin targets (wit/world.wit)`, { cause });
    }
  };
  for (const name of await witNames(join(root, "wit"), join(pluginDir, "wit"))) {
    files.push([name, await readInside(root, join("wit", name), { label: join(pluginDir, "wit", name) })]);
  }
  // clawhive's own packages, the same for every plugin: read once for all of a pass's builds.
  const add = async (from: string, to: string) => {
    for (const name of await reads.listing(from, "wit", (dir) => witNames(dir, dir))) files.push([join(to, name), await reads.text(join(from, name))]);
  };
  await add(join(WIT_DIR, "host"), "deps/host");
  await add(join(WIT_DIR, "plugin"), "deps/plugin");
  // WASI's own packages, for a world that imports WASI interfaces by name, and the WIT packages
  // a third-party plugin ships in its own wit/deps/ (read from inside its folder only).
  if (wasi) {
    for (const pkg of WASI_WIT_PACKAGES) await add(join(WASI_WIT_DIR, `wasi-${pkg}`), `deps/wasi-${pkg}`);
    const deps = await readdir(join(root, "wit", "deps"), { withFileTypes: true }).catch(() => []);
    for (const dep of deps.filter((d) => d.isDirectory() && /^[A-Za-z0-9._-]+$/.test(d.name)).map((d) => d.name).sort()) {
      for (const name of await witNames(join(root, "wit", "deps", dep), join(pluginDir, "wit", "deps", dep))) {
        files.push([join("deps", `plugin-${dep}`, name), await readInside(root, join("wit", "deps", dep, name), { label: join(pluginDir, "wit", "deps", dep, name) })]);
      }
    }
  }
  return files;
}

/** The versions of the build's tools, each under its label (part of the cache key). */
function toolVersions(packages: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(packages).map(([label, name]) => [label, packageVersion(name)]));
}

/** The versions that make a TypeScript build: componentize-js, and the jco it makes the component with (its own dependency). */
function componentizeVersions(): Record<string, string> {
  const componentize = packageDir("@bytecodealliance/componentize-js");
  return { componentize: packageVersion("@bytecodealliance/componentize-js"), jco: packageVersion("@bytecodealliance/jco", componentize) };
}

function size(bytes: number): string {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}
