/**
 * Where an npm package the plugin toolchain uses lies, found as Node finds it: in the first
 * `node_modules/<name>` from a folder up. In a clone that is the project's own node_modules;
 * installed as a dependency (`npm install clawhive`), npm hoists most packages into the
 * node_modules that clawhive itself lies in, so a path under the project's folder would miss them.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ClawhiveError } from "../errors.js";
import { PROJECT_ROOT } from "./locations.js";

/** The `node_modules` folders a module in `from` resolves packages from, nearest first, those that exist. */
export function nodeModulesDirs(from: string = PROJECT_ROOT): string[] {
  const dirs: string[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    if (basename(dir) !== "node_modules") {
      const candidate = join(dir, "node_modules");
      if (existsSync(candidate)) dirs.push(candidate);
    }
    if (dirname(dir) === dir) return dirs;
  }
}

/** The folder of package `name` as a module in `from` would resolve it. */
export function packageDir(name: string, from: string = PROJECT_ROOT): string {
  const searched = nodeModulesDirs(from);
  for (const dir of searched) if (existsSync(join(dir, name, "package.json"))) return join(dir, name);
  throw new ClawhiveError("dependency_missing", `package ${name} is not installed (looked in ${searched.join(", ") || "no node_modules"}): run npm install`);
}

/** The version in package `name`'s package.json, as a module in `from` would resolve it. */
export function packageVersion(name: string, from: string = PROJECT_ROOT): string {
  return (JSON.parse(readFileSync(join(packageDir(name, from), "package.json"), "utf8")) as { version: string }).version;
}
