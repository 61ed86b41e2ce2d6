/**
 * The package as npm ships it (slow, end to end: its own file so the runner starts it early and
 * runs it beside the others): the tarball holds the build, the plugin sources, WIT and agents a
 * run needs, and no tests; installed into an empty folder, `npx clawhive` answers at once and
 * its commands work with the state in the user's folder, never in node_modules; each `exports`
 * entry resolves by name to JavaScript with its declarations. See test/helpers/packed-install.ts.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { installTarball, packProject, quietEnv, type Installed, type Packed } from "../helpers/packed-install.js";

const run = promisify(execFile);

let packed: Packed;
let installed: Installed;

before(async () => {
  packed = await packProject();
  installed = await installTarball(packed.tarball);
});

// The user's folder holds a whole install (over 500 MB).
after(async () => {
  if (installed !== undefined) await rm(installed.dir, { recursive: true, force: true });
  if (packed !== undefined) await rm(dirname(packed.tarball), { recursive: true, force: true });
});

/** `npx clawhive ARGS` in the user's folder; `direct` runs the installed bin without npx's start. */
async function npx(args: string[], direct = false): Promise<{ code: number; stdout: string; stderr: string }> {
  const [file, argv] = direct ? [process.execPath, [join(installed.dir, "node_modules", ".bin", "clawhive"), ...args]] : ["npx", ["--offline", "clawhive", ...args]];
  try {
    const { stdout, stderr } = await run(file, argv, { cwd: installed.dir, env: quietEnv() });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === "number" ? err.code : -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

/** Every file `exports` names (types and code), as paths relative to the package. */
function exportTargets(): string[] {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { exports: unknown; bin: Record<string, string> };
  const found: string[] = Object.values(pkg.bin);
  const walk = (value: unknown): void => {
    if (typeof value === "string") found.push(value.replace(/^\.\//, ""));
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(pkg.exports);
  return found;
}

test("the tarball holds the build and what a run reads, and no tests", (t) => {
  t.diagnostic(`installed by: ${installed.how}`);
  const files = new Set(packed.files);
  for (const target of exportTargets()) assert.ok(files.has(target), `exports names ${target}, not in the tarball`);
  for (const needed of ["dist/runtime/cli-bundle/main.js", "plugins/files/plugin.json", "plugins/sdk/index.ts", "wit/host/fs.wit", "wit/wasi/wasi-io/package.wit", "capabilities/default.yaml", "skills/triage-inbox/SKILL.md"]) {
    assert.ok(files.has(needed), `${needed} is not in the tarball`);
  }
  const shipped = (prefix: string) => packed.files.filter((path) => path.startsWith(prefix));
  for (const left of ["test/", "dist/test/", "bench/", "dist/bench/", ".clawhive/", "node_modules/"]) assert.deepEqual(shipped(left), [], `the tarball ships ${left}`);
});

test("npx clawhive --help answers in the empty folder and builds nothing", async () => {
  const help = await npx(["--help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /Usage: clawhive <command>/);
  assert.equal(existsSync(join(installed.dir, ".clawhive")), false, "help made a data dir");
  assert.equal(existsSync(join(installed.dir, "node_modules", "clawhive", ".clawhive")), false, "help wrote into the package");
});

test("its commands keep the state in the user's folder and read the package's agents", async () => {
  const init = await npx(["init"]);
  assert.equal(init.code, 0, init.stderr);
  assert.ok(existsSync(join(installed.dir, ".clawhive", "clawhive.db")), `no store in the user's folder: ${init.stdout}${init.stderr}`);
  assert.equal(existsSync(join(installed.dir, "node_modules", "clawhive", ".clawhive")), false, "the store went into node_modules");
  // doctor reads the package's agents and the user's store, and builds nothing (a run's start does).
  const doctor = await npx(["doctor"], true);
  assert.match(doctor.stdout, /agents \S*node_modules\/clawhive\/capabilities: \d+ valid, 0 invalid/, doctor.stdout + doctor.stderr);
  assert.ok(doctor.stdout.includes(`store ${join(installed.dir, ".clawhive", "clawhive.db")}`), doctor.stdout);
  const audit = await npx(["audit", "verify"], true);
  assert.equal(audit.code, 0, audit.stderr);
  assert.match(audit.stdout, /^ok: \d+ records/);
  const wrong = await npx(["no-such-command"], true);
  assert.notEqual(wrong.code, 0, "control: an unknown command fails");
  assert.match(wrong.stderr, /no-such-command/);
});

test("clawhive, clawhive/client and clawhive/sdk resolve by name to JavaScript with declarations", async () => {
  const script = `import { Runtime } from "clawhive"; import { httpClient } from "clawhive/client"; import { definePlugin, defineTool } from "clawhive/sdk";
const tools = definePlugin({ tools: { hi: defineTool({ description: "Hi.", inputSchema: { type: "object", properties: {}, additionalProperties: false }, capabilities: [], risk: "safe", run: () => ({ hi: true }) }) } });
console.log(typeof Runtime, typeof httpClient, tools.call("hi", "{}"));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: installed.dir, env: quietEnv() });
  assert.equal(stdout.trim(), `function function {"hi":true}`);
  const own = join(installed.dir, "node_modules", "clawhive");
  for (const target of exportTargets()) assert.ok(existsSync(join(own, target)), `${target} is missing from the installed package`);
  const types = exportTargets().filter((path) => path.endsWith(".d.ts"));
  assert.ok(types.includes("dist/sdk/index.d.ts") && types.includes("dist/runtime/client/index.d.ts"), `declarations named: ${types.join(", ")}`);
});
