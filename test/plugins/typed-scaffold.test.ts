/**
 * `clawhive plugin new --typed`: the scaffold builds with componentize-js, installs and answers
 * through clawhive with no edits (its own test does build → install → call).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir } from "../helpers/runtime.js";
import { scaffoldTestEnv } from "../helpers/secret-key.js";

let dir: string;
before(async () => {
  dir = await tempDir("clawhive-typed-new-");
});
after(() => rm(dir, { recursive: true, force: true }));

test("a typed scaffold's own test builds, installs and calls it", async () => {
  const made = spawnSync(process.execPath, [join(PROJECT_ROOT, "bin", "clawhive.js"), "plugin", "new", "greeter", "--typed", "--dir", dir, "--publisher", "tests"], { encoding: "utf8" });
  assert.equal(made.status, 0, made.stderr);
  const manifest = JSON.parse(await readFile(join(dir, "greeter", "plugin.json"), "utf8")) as { contract: string; tools: Record<string, unknown> };
  assert.equal(manifest.contract, "typed");
  assert.deepEqual(Object.keys(manifest.tools), ["greet", "greetings_count_letters"]);
  const env = scaffoldTestEnv();
  const own = spawnSync(process.execPath, ["--test"], { cwd: join(dir, "greeter"), encoding: "utf8", timeout: 600_000, env });
  assert.equal(own.status, 0, `${own.stdout}\n${own.stderr}`);
  assert.match(own.stdout, /# pass 3\n# fail 0/);
});
