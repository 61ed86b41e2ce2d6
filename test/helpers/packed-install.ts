/**
 * This project as a user gets it: `npm pack` (of the built tree: the suite runs after a build,
 * so the pack skips the `prepack` that would build again), then the tarball installed into an
 * empty folder by npm itself, offline. A bare `npm install --offline TARBALL` must resolve every
 * dependency range from the registry's metadata, which npm's cache does not keep after `npm ci`
 * (that installs from the lock, by tarball); so the user's folder gets a lock of its own: the
 * tarball as its one dependency, and the production entries of this checkout's package-lock.json
 * (those not marked dev), the versions this tree is tested with. `npm ci --offline` then
 * installs them from the cache by integrity. When the cache does not hold them all (a tree
 * installed some other way), the install is laid out as npm lays it: the tarball unpacked into
 * node_modules/clawhive, beside this checkout's production dependencies, and
 * node_modules/.bin/clawhive. Either way nothing is fetched; `how` says which it was.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { extract } from "tar";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir } from "./runtime.js";

const run = promisify(execFile);

/** npm's own settings for a child: no network, no notices; no clawhive variable passes through. */
export function quietEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("CLAWHIVE_")) continue;
    env[name] = value;
  }
  return { ...env, npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
}

export interface Packed {
  tarball: string;
  /** The paths in the tarball, relative to the package's root. */
  files: string[];
}

export async function packProject(): Promise<Packed> {
  const dir = await tempDir("clawhive-pack-");
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: PROJECT_ROOT, env: quietEnv(), maxBuffer: 64 * 1024 * 1024 });
  const [report] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (report === undefined) throw new Error(`npm pack reported nothing: ${stdout}`);
  return { tarball: join(dir, report.filename), files: report.files.map((f) => f.path) };
}

export interface Installed {
  /** The user's folder: package.json, node_modules/clawhive. */
  dir: string;
  /** How it was installed: "npm install --offline", or "laid out" (see above) with npm's reason. */
  how: string;
}

export async function installTarball(tarball: string): Promise<Installed> {
  const dir = await tempDir("clawhive-user-");
  await writeUserLock(dir, tarball);
  try {
    await run("npm", ["ci", "--offline", "--omit=dev"], { cwd: dir, env: quietEnv(), maxBuffer: 64 * 1024 * 1024 });
    return { dir, how: "npm ci --offline" };
  } catch (e) {
    const reason = `${(e as { stderr?: string }).stderr ?? e}`.split("\n").find((line) => line.includes("error code")) ?? "npm install failed";
    if (!/ENOTCACHED/.test(`${(e as { stderr?: string }).stderr ?? ""}`)) throw e;
    await layOut(dir, tarball);
    return { dir, how: `laid out (${reason.trim()})` };
  }
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [field: string]: unknown;
}

/**
 * The user's package.json and package-lock.json: clawhive from the tarball, its dependencies as
 * this checkout's lock has them. This checkout's `overrides` pin what a dependency asks for
 * otherwise (jco's own componentize-js range); the user's folder needs the same pins, by version
 * (a `$name` reference means a dependency of the root, which the user's folder does not have).
 */
async function writeUserLock(dir: string, tarball: string): Promise<void> {
  const own = JSON.parse(await readFile(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string; license: string; bin: object; engines: object; dependencies: Record<string, string>; overrides?: Record<string, unknown> };
  const lock = JSON.parse(await readFile(join(PROJECT_ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
  const spec = `file:${tarball}`;
  const pinned = (value: unknown): unknown => {
    if (typeof value === "string" && value.startsWith("$")) return lock.packages[`node_modules/${value.slice(1)}`]?.version ?? value;
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pinned(v)]));
    return value;
  };
  const packages: Record<string, unknown> = {
    "": { name: "user", dependencies: { clawhive: spec } },
    "node_modules/clawhive": { version: own.version, resolved: spec, license: own.license, dependencies: own.dependencies, bin: own.bin, engines: own.engines },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === "" || entry.dev === true) continue;
    const { devOptional: _devOptional, peer: _peer, ...kept } = entry;
    packages[path] = kept;
  }
  const manifest = { name: "user", private: true, dependencies: { clawhive: spec }, overrides: pinned(own.overrides ?? {}) };
  await writeFile(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(join(dir, "package-lock.json"), `${JSON.stringify({ name: "user", lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}

async function layOut(dir: string, tarball: string): Promise<void> {
  const modules = join(dir, "node_modules");
  const own = join(modules, "clawhive");
  await mkdir(own, { recursive: true });
  await extract({ file: tarball, cwd: own, strip: 1 });
  const lock = JSON.parse(await readFile(join(PROJECT_ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean }> };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = path.startsWith("node_modules/") ? path.slice("node_modules/".length) : undefined;
    if (name === undefined || name.includes("node_modules/") || entry.dev === true) continue;
    if (!existsSync(join(PROJECT_ROOT, path))) continue; // an optional package of another platform
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(join(PROJECT_ROOT, path), join(modules, name), "dir");
  }
  await mkdir(join(modules, ".bin"));
  await symlink(join("..", "clawhive", "bin", "clawhive.js"), join(modules, ".bin", "clawhive"));
}
