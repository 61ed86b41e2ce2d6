/**
 * The packed tarball serves (slow, end to end: its own file so the runner starts it early and runs
 * it beside the others). Installed by npm into an empty folder (test/helpers/packed-install.ts),
 * `clawhive serve` from node_modules/.bin builds the first-party plugins from the sources the
 * tarball carries into the user's data dir, answers `/health` on a free loopback port, and stops
 * on SIGTERM. Nothing it loads comes from this checkout: the native store driver is the user's.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { installTarball, packProject, quietEnv, type Installed } from "../helpers/packed-install.js";
import { freePort } from "../helpers/sqld.js";

const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;
/** A first start builds seven plugins: about 75 s on two busy cores; the bound only stops a hang. */
const START_BOUND_MS = 10 * 60_000;

let installed: Installed;
let tarball = "";
let server: ChildProcess | undefined;
let output = "";

before(async () => {
  tarball = (await packProject()).tarball;
  installed = await installTarball(tarball);
});

after(async () => {
  if (server !== undefined && server.exitCode === null && server.signalCode === null) {
    const gone = new Promise((resolveGone) => server!.once("exit", resolveGone));
    server.kill("SIGKILL");
    await gone;
  }
  // The user's folder holds a whole install (over 500 MB).
  if (installed !== undefined) await rm(installed.dir, { recursive: true, force: true });
  if (tarball !== "") await rm(dirname(tarball), { recursive: true, force: true });
});

/** Starts `node_modules/.bin/clawhive serve` in the user's folder; resolves with its URL once it listens. */
function serve(port: number): Promise<string> {
  const bin = join(installed.dir, "node_modules", ".bin", "clawhive");
  const child = spawn(process.execPath, [bin, "serve", "--port", String(port)], { cwd: installed.dir, env: quietEnv(), stdio: ["ignore", "pipe", "pipe"] });
  server = child;
  return new Promise((resolveUrl, reject) => {
    const bound = setTimeout(() => reject(new Error(`no "listening" within ${START_BOUND_MS} ms:\n${output.slice(-4000)}`)), START_BOUND_MS);
    const seen = (text: string) => {
      output = (output + text).slice(-200_000);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(bound);
        resolveUrl(match[1]!);
      }
    };
    child.stdout?.setEncoding("utf8").on("data", seen);
    child.stderr?.setEncoding("utf8").on("data", seen);
    child.once("exit", (code, signal) => {
      clearTimeout(bound);
      reject(new Error(`clawhive serve exited (${code ?? signal}) before listening:\n${output.slice(-4000)}`));
    });
  });
}

test("node_modules/.bin/clawhive serve from the tarball builds its plugins, answers /health and stops on SIGTERM", async (t) => {
  t.diagnostic(`installed by: ${installed.how}`);
  assert.ok(installed.how.startsWith("npm "), `the tarball was not installed by npm: ${installed.how}`);
  const port = await freePort();
  const url = await serve(port);
  assert.equal(url, `http://127.0.0.1:${port}`);

  const response = await fetch(`${url}/health`);
  assert.equal(response.status, 200);
  const health = (await response.json()) as { status: string; version: string; plugins: number; tools: number };
  assert.equal(health.status, "ok");
  assert.equal(health.version, version);
  const shipped = readdirSync(join(installed.dir, "node_modules", "clawhive", "plugins")).filter((name) => existsSync(join(installed.dir, "node_modules", "clawhive", "plugins", name, "plugin.json")));
  assert.equal(health.plugins, shipped.length, `plugins served vs shipped (${shipped.join(", ")})`);
  assert.ok(health.tools > 0);
  // Control for the route: an API route without a token is refused, so /health answered as itself.
  assert.equal((await fetch(`${url}/v1/runs`)).status, 401);

  // The plugins were built from the tarball's sources into the user's data dir, not node_modules.
  assert.ok(readdirSync(join(installed.dir, ".clawhive", "build")).length > 0, "no builds in the user's .clawhive/build");
  assert.equal(existsSync(join(installed.dir, "node_modules", "clawhive", ".clawhive")), false, "the server wrote into node_modules");
  // What the process maps (its native store driver above all) is the user's, never this checkout's.
  const maps = readFileSync(`/proc/${server!.pid}/maps`, "utf8");
  const files = [...new Set(maps.split("\n").map((line) => line.split(/\s+/)[5] ?? "").filter((path) => path.startsWith("/")))];
  assert.deepEqual(files.filter((path) => path.startsWith(`${PROJECT_ROOT}/`) || path === PROJECT_ROOT), [], "mapped from the checkout");
  assert.ok(files.some((path) => path.startsWith(join(installed.dir, "node_modules")) && path.endsWith(".node")), `no native addon from the user's node_modules: ${files.filter((f) => f.endsWith(".node")).join(", ")}`);

  const exited = new Promise<number | null>((resolveExit) => server!.once("exit", (code) => resolveExit(code)));
  server!.kill("SIGTERM");
  assert.equal(await exited, 0, output.slice(-2000));
  await assert.rejects(fetch(`${url}/health`), "the server still answers after SIGTERM");
});
