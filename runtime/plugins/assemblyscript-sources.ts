/**
 * The sources of an AssemblyScript plugin's build: every `.ts` file of the plugin's folder (read
 * from inside it only, as a bundled plugin's source is) and the AssemblyScript SDK's. They are laid
 * out in the build's job folder as in the repository, `plugins/<name>/…` beside `plugins/sdk-as/…`,
 * so a plugin imports the SDK as first-party plugins do: `../../sdk-as/index` from `assembly/`.
 */
import { readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { PluginError } from "../errors.js";
import { readInside } from "./confine.js";
import { UNSHARED, type BuildReads } from "./build-reads.js";
import { PROJECT_ROOT } from "./locations.js";

const SDK_DIR = join(PROJECT_ROOT, "plugins", "sdk-as");
/** Where the SDK sits in the job folder (its `abi.ts` holds the `abort` trap the compiler is told of). */
export const SDK_IN_JOB = "plugins/sdk-as";
/** Plenty for a plugin; a folder with more is refused rather than read without end. */
const MAX_FILES = 512;

export interface AssemblyScriptSources {
  /** Job-folder path and text of each file, sorted by path. */
  files: Array<[string, string]>;
  /** The entry's path in the job folder. */
  entry: string;
}

export async function assemblyScriptSources(root: string, options: { name: string; source: string; label: string; reads?: Pick<BuildReads, "text" | "listing"> }): Promise<AssemblyScriptSources> {
  const base = `plugins/${options.name}`;
  const reads = options.reads ?? UNSHARED;
  const files: Array<[string, string]> = [];
  for (const rel of await tsFiles(root)) files.push([`${base}/${rel}`, await readInside(root, rel, { label: join(options.label, rel) })]);
  // The SDK is the project's, the same for every plugin: read once for all of a pass's builds.
  const sdk = await reads.listing(SDK_DIR, "ts", tsFiles);
  for (const rel of sdk) files.push([`${SDK_IN_JOB}/${rel}`, await reads.text(join(SDK_DIR, rel))]);
  const entry = `${base}/${options.source.replace(/^\.\//, "")}`;
  if (!files.some(([path]) => path === entry)) {
    throw new PluginError("build_failed", `${options.label}: source: ${options.source} is not a .ts file in the plugin's folder`);
  }
  return { files: files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), entry };
}

/** `.ts` files under `dir`, relative with `/`, skipping `wit/`, `node_modules/` and dot folders. */
async function tsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    const rel = relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/");
    const top = rel.split("/")[0]!;
    if (top === "wit" || top === "node_modules" || rel.split("/").some((part) => part.startsWith("."))) continue;
    out.push(rel);
    if (out.length > MAX_FILES) throw new PluginError("build_failed", `${dir}: more than ${MAX_FILES} .ts files; an AssemblyScript plugin's folder holds its source`);
  }
  return out.sort();
}
