/**
 * This project as a user gets it: `npm pack` (of the built tree: the suite runs after a build,
 * so the pack skips the `prepare` that would build again), then the tarball installed into an
 * empty folder. `npm install --offline` takes the dependencies from npm's cache, as it holds them
 * after `npm ci`. When the cache does not hold them all (a tree installed some other way), the
 * install is laid out as npm lays it: the tarball unpacked into node_modules/clawhive, beside the
 * production dependencies (those package-lock.json does not mark dev) of this checkout, and
 * node_modules/.bin/clawhive. Either way nothing is fetched.
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
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "user", private: true }));
  try {
    await run("npm", ["install", "--offline", "--omit=dev", "--no-package-lock", tarball], { cwd: dir, env: quietEnv(), maxBuffer: 64 * 1024 * 1024 });
    return { dir, how: "npm install --offline" };
  } catch (e) {
    const reason = `${(e as { stderr?: string }).stderr ?? e}`.split("\n").find((line) => line.includes("error code")) ?? "npm install failed";
    if (!/ENOTCACHED/.test(`${(e as { stderr?: string }).stderr ?? ""}`)) throw e;
    await layOut(dir, tarball);
    return { dir, how: `laid out (${reason.trim()})` };
  }
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
