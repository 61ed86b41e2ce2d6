import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { componentEmbed, componentNew } from "@bytecodealliance/jco";
import { create as tarCreate } from "tar";
import { sha256 } from "../../runtime/plugins/artifact.js";
import { buildComponent } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import type { PluginManifest } from "../../runtime/plugins/manifest.js";

export const ECHO_PLUGIN = join(PROJECT_ROOT, "bench", "plugins", "echo");

/** The bench echo plugin's component and manifest (a real component; imports clawhive:host/fs). */
export async function echoComponent(): Promise<{ bytes: Uint8Array; sha256: string; manifest: Record<string, unknown> }> {
  const built = await buildComponent(ECHO_PLUGIN, { cacheDir: defaultBuildCacheDir() });
  return { bytes: built.bytes, sha256: built.sha256, manifest: JSON.parse(built.manifestText) as Record<string, unknown> };
}

/** Writes a package folder (plugin.json + plugin.wasm) under `parent`; returns its path. */
export async function writePackage(parent: string, name: string, manifest: Record<string, unknown>, bytes: Uint8Array): Promise<string> {
  const dir = join(parent, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "plugin.json"), JSON.stringify(manifest, null, 2));
  await writeFile(join(dir, "plugin.wasm"), bytes);
  return dir;
}

/** A .tgz of a package folder's files (optionally under a top folder, like npm pack's `package/`). */
export async function packTgz(dir: string, file: string, options: { prefix?: string } = {}): Promise<string> {
  const names = (await readdir(dir)).sort();
  await tarCreate({ gzip: true, file, cwd: dir, ...(options.prefix ? { prefix: options.prefix } : {}), portable: true }, names);
  return file;
}

/** WIT packages nested into one source: the host and plugin packages plus `extra` text. */
async function witSource(world: string, extra: string): Promise<string> {
  const nest = async (dir: string) => {
    let pkg = "";
    const bodies: string[] = [];
    for (const name of (await readdir(dir)).filter((n) => n.endsWith(".wit")).sort()) {
      const text = await readFile(join(dir, name), "utf8");
      pkg = /^package\s+([^;]+);/m.exec(text)![1]!;
      bodies.push(text.replace(/^package\s+[^;]+;/m, ""));
    }
    return `package ${pkg} {\n${bodies.join("\n")}\n}\n`;
  };
  return `${world}\n${extra}\n${await nest(join(PROJECT_ROOT, "wit", "host"))}${await nest(join(PROJECT_ROOT, "wit", "plugin"))}`;
}

/**
 * A component whose world imports `imports` and exports the tools interface; its code only
 * traps (wasm-tools' dummy module). For install checks that read the binary's imports: it is
 * refused before anything of it runs. `extraWit` declares non-clawhive packages it imports.
 */
export async function dummyComponent(imports: readonly string[], extraWit = ""): Promise<{ bytes: Uint8Array; sha256: string }> {
  const world = `package test:dummy;\nworld root {\n${imports.map((i) => `  import ${i};`).join("\n")}\n  export clawhive:plugin/tools@0.1.0;\n}`;
  const core = await componentEmbed({ dummy: true, witSource: await witSource(world, extraWit), world: "root" } as Parameters<typeof componentEmbed>[0]);
  const bytes = new Uint8Array(await componentNew(core, []));
  return { bytes, sha256: sha256(bytes) };
}

export function manifestOf(overrides: Partial<PluginManifest> & Record<string, unknown>, base: Record<string, unknown>): Record<string, unknown> {
  return { ...base, ...overrides };
}
