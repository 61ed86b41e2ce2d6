/**
 * Builds Extism test plugins from WAT (the `wabt` devDependency) at test time: the probe in
 * test/plugins/extism-probe, and small modules written inline by tests.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import wabt from "wabt";
import { sha256 } from "../../runtime/plugins/artifact.js";
import { compilePlugin } from "../../runtime/plugins/compile.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { PACKAGE_WASM, parsePluginManifest, type PluginManifest } from "../../runtime/plugins/manifest.js";
import type { PluginArtifact } from "../../runtime/plugins/artifact.js";

export const EXTISM_PROBE_SOURCE = join(PROJECT_ROOT, "test", "plugins", "extism-probe");

/** A package folder (plugin.json + plugin.wasm) and the wasm's bytes and sha256. */
export interface ExtismPackage {
  dir: string;
  manifest: PluginManifest;
  bytes: Uint8Array;
  sha256: string;
}

let wabtModule: ReturnType<typeof wabt> | undefined;

/** WAT text → wasm bytes. */
export async function watToWasm(source: string, file = "module.wat"): Promise<Uint8Array> {
  wabtModule ??= wabt();
  const module = (await wabtModule).parseWat(file, source, { bulk_memory: true, mutable_globals: true });
  try {
    module.validate();
    return new Uint8Array(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

/** Writes a package folder from WAT and a manifest (plugin.json as given). */
export async function extismPackage(wat: string, manifest: Record<string, unknown>, options: { dir?: string } = {}): Promise<ExtismPackage> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "clawhive-extism-")));
  const bytes = await watToWasm(wat);
  const text = JSON.stringify(manifest, null, 2);
  await writeFile(join(dir, "plugin.json"), text);
  await writeFile(join(dir, PACKAGE_WASM), bytes);
  return { dir, manifest: parsePluginManifest(text, join(dir, "plugin.json")), bytes, sha256: sha256(bytes) };
}

/** The probe of test/plugins/extism-probe, built into a fresh package folder. */
export async function buildExtismProbe(options: { dir?: string } = {}): Promise<ExtismPackage> {
  const wat = await readFile(join(EXTISM_PROBE_SOURCE, "plugin.wat"), "utf8");
  const manifest = JSON.parse(await readFile(join(EXTISM_PROBE_SOURCE, "plugin.json"), "utf8")) as Record<string, unknown>;
  return extismPackage(wat, manifest, options);
}

/** Compiles a package as install would (hash-checked), into `cacheDir`. */
export async function compileExtism(pkg: ExtismPackage, cacheDir: string): Promise<PluginArtifact> {
  return compilePlugin({ manifest: pkg.manifest, bytes: pkg.bytes, sha256: pkg.sha256 }, { cacheDir });
}

/** A minimal manifest for an inline test module. */
export function extismManifest(name: string, capabilities: string[] = [], tools: Record<string, "safe" | "guarded" | "unsafe"> = { run: "safe" }): Record<string, unknown> {
  return {
    name,
    version: "0.1.0",
    description: `Extism test module ${name}`,
    publisher: "clawhive-tests",
    format: "extism",
    capabilities,
    tools: Object.fromEntries(Object.entries(tools).map(([tool, risk]) => [tool, { risk }])),
  };
}
