/**
 * Where state lives when neither a flag, a variable nor a config file says: the nearest
 * `.clawhive` holding a store, from the working folder up, else the project's own `.clawhive`
 * (installed as a package, the working folder's: npm's folder is no place for state).
 * A command run in a subfolder (a plugin being written, a docs folder) thereby finds the store
 * it was meant to use instead of silently starting a second one there, with a second secret
 * key. `clawhive init` makes a store somewhere else on purpose.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { installedAsPackage, PROJECT_ROOT } from "../plugins/project-root.js";

export const DATA_DIR_NAME = ".clawhive";
export const STORE_FILE = "clawhive.db";

/** The nearest `<dir>/.clawhive/clawhive.db` from `cwd` up, else `<project root>/.clawhive` (`<cwd>/.clawhive` when installed). */
export function defaultDataDir(cwd: string): string {
  return findDataDir(cwd) ?? join(installedAsPackage() ? resolve(cwd) : PROJECT_ROOT, DATA_DIR_NAME);
}

/** The nearest `.clawhive` holding a store, from `cwd` up; undefined when there is none. */
export function findDataDir(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, DATA_DIR_NAME);
    if (existsSync(join(candidate, STORE_FILE))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
