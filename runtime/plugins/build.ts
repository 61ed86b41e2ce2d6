import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import { PluginError } from "../errors.js";
import { ARTIFACT_RECORD, GLUE_FILE, readArtifact, sha256, type PluginArtifact } from "./artifact.js";
import { parsePluginManifest } from "./manifest.js";
import { PROJECT_ROOT } from "./locations.js";

const WIT_DIR = join(PROJECT_ROOT, "wit");
const CHILD = join(dirname(fileURLToPath(import.meta.url)), "componentize-child.js");
/** Bump when the build recipe changes, so old cache entries stop matching. */
const RECIPE = "3";

export interface BuildOptions {
  /** Where built artifacts are cached, one folder per content key. */
  cacheDir: string;
  /** Called with one line per build phase, for progress output. */
  onProgress?: (line: string) => void;
}

/**
 * Builds the plugin in `pluginDir` into a cached artifact, unless one with the same content key
 * exists. The key hashes everything the output depends on: bundled source, WIT, tool versions.
 */
export async function buildPlugin(pluginDir: string, options: BuildOptions): Promise<PluginArtifact> {
  const progress = options.onProgress ?? (() => {});
  const manifestFile = join(pluginDir, "plugin.json");
  const manifestText = await readFile(manifestFile, "utf8");
  const manifest = parsePluginManifest(manifestText, manifestFile);
  const source = await bundle(join(pluginDir, manifest.source));
  const witFiles = await collectWit(pluginDir);
  const key = sha256(
    // The manifest is part of the artifact (its record), so it is part of the key.
    JSON.stringify({ recipe: RECIPE, tools: toolVersions(), manifest: sha256(manifestText), source: sha256(source), wit: witFiles.map(([n, t]) => [n, sha256(t)]) }),
  );
  const outDir = join(options.cacheDir, `${manifest.name}-${key.slice(0, 16)}`);
  const cached = await readArtifact(outDir);
  if (cached && cached.key === key) return cached;

  progress(`${manifest.name}: componentizing (this takes a few seconds)`);
  const started = Date.now();
  const work = await mkdtemp(join(tmpdir(), "clawhive-build-"));
  try {
    await writeFile(join(work, "plugin.js"), source);
    for (const [name, text] of witFiles) {
      await mkdir(dirname(join(work, "wit", name)), { recursive: true });
      await writeFile(join(work, "wit", name), text);
    }
    await runChild(work, manifest.world);
    progress(`${manifest.name}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return await storeArtifact({ work, outDir, key, manifest });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function storeArtifact(input: {
  work: string;
  outDir: string;
  key: string;
  manifest: PluginArtifact["manifest"];
}): Promise<PluginArtifact> {
  const out = join(input.work, "out");
  const names = (await readdir(out)).filter((n) => n === GLUE_FILE || n.endsWith(".wasm"));
  const files: Record<string, string> = {};
  let componentSha256 = "";
  for (const name of names) {
    let bytes = await readFile(join(out, name));
    if (name === GLUE_FILE) {
      bytes = Buffer.from(patchGlue(bytes.toString("utf8")));
      await writeFile(join(out, name), bytes);
    }
    if (name === "component.wasm") componentSha256 = sha256(bytes);
    else files[name] = sha256(bytes);
  }
  if (!files[GLUE_FILE] || !componentSha256) throw new PluginError("build_failed", `${input.manifest.name}: the build produced no glue or component`);
  const record = { key: input.key, manifest: input.manifest, componentSha256, files };
  await writeFile(join(out, ARTIFACT_RECORD), JSON.stringify(record, null, 2));
  // Publish atomically: a reader sees either no folder or a complete one.
  await mkdir(dirname(input.outDir), { recursive: true });
  await rm(input.outDir, { recursive: true, force: true });
  await cp(out, input.outDir + ".tmp", { recursive: true });
  await rename(input.outDir + ".tmp", input.outDir);
  return { ...record, dir: input.outDir };
}

/**
 * Deterministic edits to the generated glue, applied before hashing:
 * - jco's glue reads `process.env.JCO_DEBUG` on every call (about a quarter of a call's CPU);
 *   the sandbox never debugs through the environment.
 * - At each instantiation the glue tries `WebAssembly.promising` (JSPI) on several exports and
 *   falls back in a catch. Node 20 has no JSPI, so each try throws a TypeError whose stack
 *   capture cost ~0.4 ms: about a quarter of an instantiation. Without JSPI the stand-in throws
 *   a primitive (no stack), taking the same fallback.
 */
export function patchGlue(glue: string): string {
  const debug = "if (!globalThis?.process?.env?.JCO_DEBUG) { return; }";
  const promising =
    "const __clawhivePromising = typeof WebAssembly.promising === 'function' ? WebAssembly.promising : () => { throw 0; };\n";
  return promising + glue.split(debug).join("return;").split("WebAssembly.promising(").join("__clawhivePromising(");
}

async function bundle(entry: string): Promise<string> {
  try {
    const result = await esbuild({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      // Plugins may use npm packages written for any platform; take their ESM or CJS entry.
      mainFields: ["module", "main"],
      // A guest has no process: a package reading process.env sees an empty environment (as
      // DESIGN promises plugins), decided at build time rather than failing at run time.
      define: { "process.env": "{}", "process.env.NODE_ENV": '"production"' },
      target: "es2022",
      external: ["clawhive:*"],
      logLevel: "silent",
    });
    const file = result.outputFiles[0];
    if (!file) throw new Error("no output");
    return file.text;
  } catch (cause) {
    throw new PluginError("build_failed", `bundling ${entry} failed: ${(cause as Error).message}`, { cause });
  }
}

/** The plugin's own world at the root, clawhive's packages under deps/ (WIT's package layout). */
async function collectWit(pluginDir: string): Promise<Array<[string, string]>> {
  const files: Array<[string, string]> = [];
  const add = async (from: string, to: string) => {
    for (const name of (await readdir(from)).filter((n) => n.endsWith(".wit")).sort()) {
      files.push([join(to, name), await readFile(join(from, name), "utf8")]);
    }
  };
  await add(join(pluginDir, "wit"), "");
  await add(join(WIT_DIR, "host"), "deps/host");
  await add(join(WIT_DIR, "plugin"), "deps/plugin");
  return files;
}

function toolVersions(): Record<string, string> {
  const version = (name: string) =>
    (JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  return { componentize: version("@bytecodealliance/componentize-js"), jco: version("@bytecodealliance/jco") };
}

function runChild(work: string, world: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    // The child gets a minimal environment: the build needs nothing from ours.
    const child = spawn(process.execPath, [CHILD, work, world], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolvePromise();
      else reject(new PluginError("build_failed", `componentize failed (exit ${code}):\n${output.split(work).join("<build>").slice(-4000)}`));
    });
  });
}
