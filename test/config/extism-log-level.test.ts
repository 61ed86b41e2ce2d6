/**
 * `sandbox.extism_log_level` (CLAWHIVE_EXTISM_LOG_LEVEL): the level Extism plugins' log calls
 * are filtered at and `get_log_level` answers. Its default, the file, the environment over the
 * file, and a value that is not a level refused naming the source.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ConfigError, loadConfig } from "../../runtime/config/index.js";

let root: string;
let n = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "clawhive-config-extism-"));
});
after(() => rm(root, { recursive: true, force: true }));

/** A fresh cwd holding clawhive.yaml with `yaml` (none when undefined). */
async function dir(yaml?: string): Promise<string> {
  const cwd = join(root, `c${++n}`);
  await mkdir(cwd);
  if (yaml !== undefined) await writeFile(join(cwd, "clawhive.yaml"), yaml);
  return cwd;
}

test("the default is info, an empty file included", async () => {
  assert.equal((await loadConfig({ env: {}, cwd: await dir() })).sandbox.extismLogLevel, "info");
  assert.equal((await loadConfig({ env: {}, cwd: await dir("# nothing yet\n") })).sandbox.extismLogLevel, "info");
});

test("the level comes from the file, else the environment over it", async () => {
  const cwd = await dir("sandbox:\n  extism_log_level: debug\n");
  assert.equal((await loadConfig({ env: {}, cwd })).sandbox.extismLogLevel, "debug");
  assert.equal((await loadConfig({ env: { CLAWHIVE_EXTISM_LOG_LEVEL: "silent" }, cwd })).sandbox.extismLogLevel, "silent");
});

const rows: Array<{ name: string; env?: Record<string, string>; yaml?: string; refused?: string }> = [
  { name: "control: every level is one", env: { CLAWHIVE_EXTISM_LOG_LEVEL: "trace" } },
  { name: "a word that is not a level", env: { CLAWHIVE_EXTISM_LOG_LEVEL: "verbose" }, refused: "env CLAWHIVE_EXTISM_LOG_LEVEL: expected trace, debug, info, warn, error, silent" },
  { name: "control: a level in the file", yaml: "sandbox:\n  extism_log_level: error\n" },
  { name: "the PDK's integer instead of the name", yaml: "sandbox:\n  extism_log_level: 2\n", refused: "config clawhive.yaml: sandbox.extism_log_level: expected trace, debug, info, warn, error, silent" },
];
for (const row of rows) {
  test(row.name, async () => {
    const loading = loadConfig({ env: row.env ?? {}, cwd: await dir(row.yaml) });
    if (row.refused === undefined) {
      await loading;
      return;
    }
    await assert.rejects(loading, (error: unknown) => error instanceof ConfigError && error.message.split("\n").includes(row.refused!));
  });
}
