/**
 * Before the first start: which store the CLI uses (never a new one in a subfolder), `init`,
 * `doctor`, the shipped examples, colour.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { BIN, WRITER } from "./fixtures.js";

/** The binary in `cwd`, with no clawhive variables but those given. */
function clawhiveAt(cwd: string, args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(clean)) if (name.startsWith("CLAWHIVE_") && name !== "CLAWHIVE_BUILD_CACHE") delete clean[name];
  delete clean.NO_COLOR;
  delete clean.FORCE_COLOR;
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", timeout: 300_000, env: { ...clean, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("the CLI uses the nearest store from the working folder up; init makes one on purpose; a subfolder gets none", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "clawhive-init-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, ".gitignore"), "node_modules/");
  const made = clawhiveAt(root, ["init"]);
  assert.equal(made.code, 0, made.stderr);
  assert.ok(existsSync(join(root, ".clawhive", "clawhive.db")));
  assert.match(await readFile(join(root, ".gitignore"), "utf8"), /^\.clawhive\/$/m);
  assert.equal(clawhiveAt(root, ["init"]).code, 1, "a second init changes nothing");
  const sub = join(root, "plugins", "mine");
  await mkdir(sub, { recursive: true });
  const listed = clawhiveAt(sub, ["runs", "list"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(!existsSync(join(sub, ".clawhive")), "no second store in the subfolder");
  // CLAWHIVE_DATA_DIR still wins over the search.
  const elsewhere = join(root, "elsewhere");
  const explicit = clawhiveAt(sub, ["runs", "list"], { CLAWHIVE_DATA_DIR: elsewhere });
  assert.notEqual(explicit.code, 0);
  assert.match(explicit.stderr, new RegExp(`no store at ${elsewhere}`));
});

test("shipped examples validate on a fresh clone, saying the data-dir folder is made on first start, and nothing is written", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "clawhive-fresh-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const data = join(root, "never-started");
  const files = ["default.yaml", "coder.yaml"].map((f) => join(PROJECT_ROOT, "capabilities", f));
  const checked = clawhiveAt(root, ["agent", "validate", ...files, "--data-dir", data]);
  assert.equal(checked.code, 0, checked.stdout);
  assert.match(checked.stdout, /does not exist yet; the runtime creates it on first start \(or now: mkdir -p /);
  assert.ok(!existsSync(data));
});

test("doctor names each check, what to do, model keys by name only; an invalid agent fails it without hiding the valid", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "clawhive-doctor-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const agents = join(root, "agents");
  await mkdir(agents);
  await writeFile(join(agents, "writer.yaml"), WRITER.replace("id: none }", "id: none, api_key_secret: writer-key }"));
  const data = join(root, "data");
  const healthy = clawhiveAt(root, ["doctor", "--agents", agents, "--data-dir", data]);
  assert.equal(healthy.code, 0, healthy.stdout);
  assert.match(healthy.stdout, /^ok {3}node \d+\./m);
  assert.match(healthy.stdout, /bubblewrap/);
  assert.match(healthy.stdout, new RegExp(`^warn no store yet at ${join(data, "clawhive.db")} \\(from --data-dir\\)`, "m"));
  assert.match(healthy.stdout, /^warn model key writer-key is not set \(agent writer cannot call their model\)\n {5}→ clawhive secret set writer-key/m);
  assert.match(healthy.stdout, /agents .*: 1 valid, 0 invalid/);
  assert.ok(!existsSync(data), "doctor writes nothing");
  await writeFile(join(agents, "broken.yaml"), WRITER.replace("name: writer", "name: broken").replace(/system_prompt: .*\n/, ""));
  const sick = clawhiveAt(root, ["doctor", "--agents", agents, "--data-dir", data]);
  assert.equal(sick.code, 1, sick.stdout);
  assert.match(sick.stdout, /^FAIL agent broken is invalid: system_prompt: /m);
  assert.match(sick.stdout, /1 valid, 1 invalid/);
});

test("colour only for a terminal or FORCE_COLOR, never with NO_COLOR", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "clawhive-colour-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const args = ["doctor", "--agents", join(root, "none"), "--data-dir", join(root, "d")];
  const escape = "\u001b[";
  assert.ok(!clawhiveAt(root, args).stdout.includes(escape), "a pipe gets no colour");
  assert.ok(clawhiveAt(root, args, { FORCE_COLOR: "1" }).stdout.includes(escape), "control: FORCE_COLOR paints");
  assert.ok(!clawhiveAt(root, args, { FORCE_COLOR: "1", NO_COLOR: "1" }).stdout.includes(escape), "NO_COLOR wins");
});
