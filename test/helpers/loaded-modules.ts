/**
 * What importing a module loads: a child process imports `specifier` (from `cwd`) under hooks
 * that see every ES module loaded, and reports their paths with those `require` loaded (a
 * CommonJS package such as a native driver is `require`d by its own entry). Node 20 has no
 * synchronous hooks for `require`, so the CommonJS side is read from the shared module cache.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const HOOKS = pathToFileURL(join(fileURLToPath(new URL(".", import.meta.url)), "loaded-modules-hooks.js")).href;

const CHILD = `
import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const seen = [];
port1.on("message", (url) => seen.push(url));
register(${JSON.stringify(HOOKS)}, { data: { port: port2 }, transferList: [port2] });
const [specifier] = process.argv.slice(1);
await import(specifier);
// The hooks' messages arrive in order: once a module loaded last is reported, all before it are.
const last = "data:text/javascript,export default 'last'";
const arrived = new Promise((resolve) => port1.on("message", (url) => url === last && resolve()));
await import(last);
await arrived;
port1.close();
const cjs = Object.keys(createRequire(import.meta.url).cache);
const paths = [...seen.filter((u) => u.startsWith("file:")).map((u) => new URL(u).pathname), ...cjs];
process.stdout.write(JSON.stringify([...new Set(paths)]));
`;

/** The files (absolute paths) loaded by importing `specifier` in a fresh process started in `cwd`. */
export async function modulesLoadedBy(specifier: string, cwd: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", CHILD, specifier], { cwd, encoding: "utf8" });
  return JSON.parse(stdout) as string[];
}
