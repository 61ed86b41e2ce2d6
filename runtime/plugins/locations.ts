import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { defaultDataDir } from "../config/data-dir.js";
import { installedAsPackage, PROJECT_ROOT } from "./project-root.js";

export { installedAsPackage, PROJECT_ROOT } from "./project-root.js";

/**
 * Where plugin builds are cached unless configured otherwise (node-local, never committed): the
 * project's `.clawhive/build` in a clone; installed as a package, `build` in the data dir
 * (`dataDir`, else the one a command run here would use), never inside node_modules. An empty
 * CLAWHIVE_BUILD_CACHE counts as unset: it would otherwise be the working folder.
 */
export function defaultBuildCacheDir(dataDir?: string): string {
  const configured = process.env.CLAWHIVE_BUILD_CACHE;
  if (configured !== undefined && configured !== "") return configured;
  return installedAsPackage() ? join(dataDir ?? defaultDataDir(process.cwd()), "build") : join(PROJECT_ROOT, ".clawhive", "build");
}

/**
 * First-party plugin folders built from source (those with a plugin.json), and optionally the
 * test and bench plugins. Extism plugins are left out: they are built by their own toolchain
 * (the test probe by test/helpers/extism-probe.ts) and installed as a package.
 */
export async function pluginSourceDirs(options: { includeTests?: boolean } = {}): Promise<string[]> {
  const roots = [join(PROJECT_ROOT, "plugins")];
  if (options.includeTests) roots.push(join(PROJECT_ROOT, "test", "plugins"), join(PROJECT_ROOT, "bench", "plugins"));
  const dirs: string[] = [];
  for (const root of roots) {
    let names: string[];
    try {
      names = await readdir(root);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      const dir = join(root, name);
      let manifest: string;
      try {
        manifest = await readFile(join(dir, "plugin.json"), "utf8");
      } catch {
        continue; // not a plugin folder (e.g. the SDK, or a test's own files)
      }
      if (!isExtism(manifest)) dirs.push(dir);
    }
  }
  return dirs;
}

/** A manifest that is not JSON is left to the builder, which names the problem. */
function isExtism(manifest: string): boolean {
  try {
    return (JSON.parse(manifest) as { format?: unknown }).format === "extism";
  } catch {
    return false;
  }
}

/** The folder of one first-party plugin by name. */
export function firstPartyPluginDir(name: string): string {
  return join(PROJECT_ROOT, "plugins", name);
}
