/**
 * Builds the C tool of test/plugins/c-wasi (docs/plugins.md) the way its author would: Debian's
 * clang, lld and wasi-libc, for wasip1, against the Extism C PDK header (test/fixtures/extism-c-pdk).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sha256 } from "../../runtime/plugins/artifact.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { PACKAGE_WASM, parsePluginManifest } from "../../runtime/plugins/manifest.js";
import type { ExtismPackage } from "./extism-probe.js";

export const C_PLUGIN_SOURCE = join(PROJECT_ROOT, "test", "plugins", "c-wasi");
const PDK_HEADER_DIR = join(PROJECT_ROOT, "test", "fixtures", "extism-c-pdk");

/** Compiles plugin.c into a fresh package folder (plugin.json + plugin.wasm). */
export async function buildCPlugin(): Promise<ExtismPackage> {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-c-plugin-"));
  const wasm = join(dir, PACKAGE_WASM);
  await promisify(execFile)("clang", ["--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-mexec-model=reactor", "-I", PDK_HEADER_DIR, "-o", wasm, join(C_PLUGIN_SOURCE, "plugin.c")]);
  const text = await readFile(join(C_PLUGIN_SOURCE, "plugin.json"), "utf8");
  await writeFile(join(dir, "plugin.json"), text);
  const bytes = new Uint8Array(await readFile(wasm));
  return { dir, manifest: parsePluginManifest(text, join(dir, "plugin.json")), bytes, sha256: sha256(bytes) };
}
