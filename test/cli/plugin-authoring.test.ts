/**
 * Plugin authoring through the real binary: `clawhive plugin new` → `plugin build` → `plugin
 * install` → `call`, with no edit to what `new` wrote; then the scaffold's own test, its
 * typecheck, and the ways `new` and `build` refuse.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { list as tarList } from "tar";
import { sha256 } from "../../runtime/plugins/artifact.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { clawhiveIn, cliPlace, type CliPlace } from "./fixtures.js";
import { scaffoldTestEnv } from "../helpers/secret-key.js";

const NAME = "authoring-hello";
let place: CliPlace;
let plugin: string;

/** An agent that lists the plugin; `grants` is its YAML grants block. */
const agent = (name: string, grants: string) =>
  `name: ${name}\ndescription: Calls ${NAME} in tests.\nmodel: { provider: anthropic, id: none }\nsystem_prompt: Not used.\nplugins:\n  - { name: ${NAME}, version: "*" }\ngrants: ${grants}\n`;

/** The real binary without a data dir flag (`plugin new` and `plugin build` have none). */
function clawhive(args: string[], options: { cwd?: string } = {}): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, "bin", "clawhive.js"), ...args], { encoding: "utf8", timeout: 300_000, ...options });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function clawhiveAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [join(PROJECT_ROOT, "bin", "clawhive.js"), ...args], { encoding: "utf8", timeout: 300_000 }, (error, stdout, stderr) => {
      resolvePromise({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

before(async () => {
  place = await cliPlace("clawhive-authoring-");
  const created = clawhive(["plugin", "new", NAME, "--dir", place.root, "--publisher", "tests"]);
  assert.equal(created.code, 0, created.stderr);
  plugin = join(place.root, NAME);
  await writeFile(join(place.agents, "tester.yaml"), agent("tester", "\n  log: {}"));
  await writeFile(join(place.agents, "nolog.yaml"), agent("nolog", "{}"));
});

after(async () => {
  await rm(place.root, { recursive: true, force: true });
  // This test's builds are throwaway: keep the node-local cache to what other runs reuse.
  for (const kind of ["source", "compiled"]) {
    const dir = join(defaultBuildCacheDir(), kind);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.startsWith(`${NAME}-`))) await rm(join(dir, name), { recursive: true, force: true });
  }
});

test("a new plugin builds, packs, installs and answers through clawhive, with no edits", async () => {
  const built = clawhive(["plugin", "build", "--pack"], { cwd: plugin });
  assert.equal(built.code, 0, built.stderr);
  assert.match(built.stderr, new RegExp(`^${NAME}: bundling src/index\\.ts$`, "m"));
  assert.match(built.stderr, /(component built in [\d.]+ s|component up to date) .*\d+\.\d MiB/);
  assert.deepEqual(built.stdout.trim().split("\n"), ["dist/plugin.wasm", "dist/plugin.json", `dist/${NAME}-0.1.0.tgz`]);

  const wasm = await readFile(join(plugin, "dist", "plugin.wasm"));
  const manifest = JSON.parse(await readFile(join(plugin, "dist", "plugin.json"), "utf8")) as Record<string, unknown>;
  assert.equal(manifest.sha256, sha256(wasm));
  assert.deepEqual(manifest, { ...(JSON.parse(await readFile(join(plugin, "plugin.json"), "utf8")) as object), sha256: sha256(wasm) });
  const packed: Array<[string, number]> = [];
  await tarList({ file: join(plugin, "dist", `${NAME}-0.1.0.tgz`), onReadEntry: (e) => packed.push([e.path, e.size]) });
  assert.deepEqual(packed.sort(), [["plugin.json", Buffer.byteLength(JSON.stringify(manifest, null, 2)) + 1], ["plugin.wasm", wasm.length]]);

  const installed = clawhiveIn(place, "plugin", "install", join(plugin, "dist"));
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, new RegExp(`installed ${NAME}@0\\.1\\.0 .*sha256 ${sha256(wasm)}`));

  const called = clawhiveIn(place, "call", `${NAME}.hello`, '{"name":"Ada"}', "--agent", "tester", "--agents", place.agents);
  assert.equal(called.code, 0, called.stderr);
  assert.deepEqual(JSON.parse(called.stdout), { greeting: "Hello, Ada." });

  // The tool's log line went through the log proxy: allowed for an agent granting `log`...
  const audit = (agentName: string) =>
    JSON.parse(clawhiveIn(place, "audit", "tail", "--kind", "host_call", "--agent", agentName, "--json").stdout) as Array<{ status: string }>;
  assert.deepEqual(audit("tester").map((r) => r.status).sort(), ["intent", "ok"]);
  // ...and refused (audited, the line dropped: logging never fails a tool) for one that does not.
  const ungranted = clawhiveIn(place, "call", `${NAME}.hello`, '{"name":"Ada"}', "--agent", "nolog", "--agents", place.agents);
  assert.equal(ungranted.code, 0, ungranted.stderr);
  assert.deepEqual(audit("nolog").map((r) => r.status), ["denied"]);

  // The .tgz installs too, into another data dir.
  const other = { ...place, data: join(place.root, "data-tgz") };
  const fromTgz = clawhiveIn(other, "plugin", "install", join(plugin, "dist", `${NAME}-0.1.0.tgz`));
  assert.equal(fromTgz.code, 0, fromTgz.stderr);
  assert.match(fromTgz.stdout, new RegExp(`sha256 ${sha256(wasm)}`));
});

test("the scaffold's own test passes, and its source typechecks against the SDK", () => {
  const env = scaffoldTestEnv();
  const own = spawnSync(process.execPath, ["--test"], { cwd: plugin, encoding: "utf8", timeout: 600_000, env });
  assert.equal(own.status, 0, `${own.stdout}\n${own.stderr}`);
  assert.match(own.stdout, /# pass 2\n# fail 0/);
  const tsc = spawnSync(process.execPath, [join(PROJECT_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", plugin], { encoding: "utf8", timeout: 300_000 });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});

// Each case spawns the binary; they run side by side (spawned asynchronously).
describe("plugin new refuses what it cannot scaffold", { concurrency: true }, () => {
  const bad: Array<[name: string, message: RegExp]> = [
    ["Hello", /expected a lowercase name/],
    ["1st", /expected a lowercase name/],
    ["my_tool", /expected a lowercase name/],
    ["../escape", /expected a lowercase name/],
    ["a".repeat(64), /at most 63/],
    ["double--dash", /'-' must join two words/],
    ["trailing-", /'-' must join two words/],
    ["list", /a WIT keyword/],
  ];
  for (const [name, message] of bad) {
    test(JSON.stringify(name), async () => {
      const result = await clawhiveAsync(["plugin", "new", name, "--dir", place.root]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.ok(!(await readdir(place.root)).includes(name));
    });
  }

  test("control: a name with digits and single dashes", async () => {
    const result = await clawhiveAsync(["plugin", "new", "pdf-tools2", "--dir", join(place.root, "controls")]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok((await readdir(join(place.root, "controls", "pdf-tools2"))).includes("plugin.json"));
  });

  test("an existing folder that is not empty is left alone", async () => {
    const dir = join(place.root, "taken", "mine");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "notes.txt"), "keep me");
    const result = clawhive(["plugin", "new", "mine", "--dir", join(place.root, "taken")]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /mine: the folder exists and is not empty/);
    assert.deepEqual(await readdir(dir), ["notes.txt"]);
    // Control: an empty folder is filled.
    await mkdir(join(place.root, "taken", "empty"));
    assert.equal(clawhive(["plugin", "new", "empty", "--dir", join(place.root, "taken")]).code, 0);
  });
});

describe("plugin build refuses, naming the problem", () => {
  test("an import leading out of the plugin folder fails the build (exit 1) and writes nothing", async () => {
    const dir = join(place.root, "leaky");
    assert.equal(clawhive(["plugin", "new", "leaky", "--dir", place.root]).code, 0);
    await writeFile(join(place.root, "secret.ts"), 'export const secret = "s3cret";\n');
    await symlink("../../secret.ts", join(dir, "src", "linked.ts"));
    for (const specifier of ["../../secret.ts", "./linked.ts", join(place.root, "secret.ts")]) {
      await writeFile(join(dir, "src", "index.ts"), `import { secret } from ${JSON.stringify(specifier)};\nexport const tools = { secret };\n`);
      const result = clawhive(["plugin", "build", dir]);
      assert.equal(result.code, 1, result.stderr);
      assert.ok(result.stderr.includes(`src/index.ts:1:23: import ${JSON.stringify(specifier)}: resolves to `), result.stderr);
      assert.match(result.stderr, /outside the plugin folder/);
    }
    await assert.rejects(readdir(join(dir, "dist")), { code: "ENOENT" });
  });

  test("no plugin.json, or an invalid one, is bad input (exit 2)", async () => {
    const empty = join(place.root, "no-manifest");
    await mkdir(empty);
    const missing = clawhive(["plugin", "build", empty]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no-manifest\/plugin\.json: not found; a plugin folder holds plugin\.json \(start one with 'clawhive plugin new NAME'\)/);
    await writeFile(join(empty, "plugin.json"), JSON.stringify({ name: "Bad", version: "1" }));
    const invalid = clawhive(["plugin", "build", empty]);
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /plugin\.json: name: expected a lowercase name/);
    const extra = clawhive(["plugin", "build", empty, "other"]);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /usage: clawhive plugin build/);
  });
});
