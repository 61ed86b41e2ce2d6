import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { create as createTar } from "tar";
import { ClawhiveError, InvalidInputError, PluginError } from "../errors.js";
import { buildComponent } from "../plugins/build.js";
import { defaultBuildCacheDir } from "../plugins/locations.js";
import { PACKAGE_WASM } from "../plugins/manifest.js";
import { parseCommandArgs } from "./args.js";

export const pluginBuildHelp = `clawhive plugin build — build a plugin's source into an installable package

  clawhive plugin build [DIR] [--out OUT] [--pack] [--cache-dir CACHE]

  DIR               the plugin folder, with plugin.json, src/ and wit/ (default: .)
  --out OUT         where to write plugin.wasm and plugin.json (default: DIR/dist)
  --pack            also write OUT/NAME-VERSION.tgz holding exactly those two files
  --cache-dir CACHE the build cache (default: clawhive's node-local cache; env CLAWHIVE_BUILD_CACHE)

  Bundles the source with esbuild, reading only DIR (its node_modules included) and the SDK,
  then componentizes it (a few seconds; an unchanged plugin comes from the cache). A plugin whose
  plugin.json says "language": "assemblyscript" is compiled with asc instead (about a second). The
  plugin.json written beside plugin.wasm is DIR's with the sha256 of plugin.wasm added, which
  'clawhive plugin install' then enforces. Progress goes to stderr, the files written to stdout.

  Exit codes: 0 built; 1 the build failed (bundling, componentizing); 2 bad usage, no plugin.json,
  or an invalid manifest.`;

export async function pluginBuildCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { out: { type: "string" }, pack: { type: "boolean" }, "cache-dir": { type: "string" } });
  const [dirArg = ".", ...extra] = positionals;
  if (extra.length > 0) throw new InvalidInputError("usage: clawhive plugin build [DIR] [--out OUT] [--pack] [--cache-dir CACHE]", { field: "dir" });
  const dir = resolve(dirArg);
  const out = resolve((values.out as string | undefined) ?? join(dir, "dist"));
  const cacheDir = resolve((values["cache-dir"] as string | undefined) ?? defaultBuildCacheDir());
  const started = Date.now();
  let built;
  try {
    built = await buildComponent(dir, { cacheDir, verbose: true, onProgress: (line) => console.error(line) });
  } catch (error) {
    // A plugin that does not build is a failure of the build, not of how it was asked for.
    if (error instanceof PluginError && error.code === "build_failed") {
      console.error(`clawhive: ${error.message}`);
      return 1;
    }
    throw error;
  }
  const { manifest } = built;
  await mkdir(out, { recursive: true });
  const written = [
    await writeAtomically(join(out, PACKAGE_WASM), built.bytes),
    await writeAtomically(join(out, "plugin.json"), packageManifest(built.manifestText, built.sha256)),
  ];
  if (values.pack) written.push(await pack(out, `${manifest.name}-${manifest.version}.tgz`));
  console.error(`${manifest.name}: wrote ${show(out)} (plugin.wasm ${sizeOf(built.bytes.length)}, sha256 ${built.sha256}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const file of written) console.log(show(file));
  return 0;
}

function sizeOf(bytes: number): string {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** The source manifest as its author wrote it, with the sha256 of the plugin.wasm beside it. */
function packageManifest(manifestText: string, sha256: string): string {
  const manifest = JSON.parse(manifestText) as Record<string, unknown>;
  return `${JSON.stringify({ ...manifest, sha256 }, null, 2)}\n`;
}

/** A reader never sees half a file: write beside, then rename over. */
async function writeAtomically(file: string, data: Uint8Array | string): Promise<string> {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (cause) {
    await rm(temp, { force: true });
    throw new ClawhiveError("write_failed", `${file}: could not write: ${(cause as Error).message}`, { cause });
  }
  return file;
}

/**
 * `NAME-VERSION.tgz` of exactly plugin.json and plugin.wasm at its root, reproducible: fixed
 * mtimes, no owner names (the same build packs to the same bytes).
 */
async function pack(out: string, name: string): Promise<string> {
  const file = join(out, name);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await createTar({ gzip: true, file: temp, cwd: out, portable: true, mtime: new Date(0) }, ["plugin.json", PACKAGE_WASM]);
    await rename(temp, file);
  } catch (cause) {
    await rm(temp, { force: true });
    throw new ClawhiveError("write_failed", `${file}: could not pack: ${(cause as Error).message}`, { cause });
  }
  return file;
}

function show(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}
