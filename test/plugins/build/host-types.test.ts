/**
 * plugins/sdk/host.d.ts is what plugin authors compile against; wit/host is what their components
 * are linked against. The first is generated from the second (`npm run gen:sdk`): this test fails
 * when the checked-in file is not what the WIT generates, so the two cannot drift.
 */
import assert from "node:assert/strict";
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { generateHostDts, HOST_DTS_PATH } from "../../../runtime/plugins/guest-types.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { tempDir } from "../../helpers/runtime.js";

const WIT = join(PROJECT_ROOT, "wit");

test("the tool-plugin world imports every interface of wit/host", async () => {
  const interfaces: string[] = [];
  for (const name of await readdir(join(WIT, "host"))) {
    for (const match of (await readFile(join(WIT, "host", name), "utf8")).matchAll(/^interface ([a-z][a-z0-9-]*) \{/gm)) interfaces.push(match[1]!);
  }
  const world = /world tool-plugin \{([\s\S]*?)\n\}/.exec(await readFile(join(WIT, "plugin", "tools.wit"), "utf8"))?.[1] ?? "";
  const imported = [...world.matchAll(/import clawhive:host\/([a-z][a-z0-9-]*)@/g)].map((m) => m[1]!);
  // `types` holds the shared error variant: imported through the interfaces that use it.
  assert.deepEqual(imported.sort(), interfaces.filter((i) => i !== "types").sort());
});

test("plugins/sdk/host.d.ts is what wit/ generates (run `npm run gen:sdk` after a WIT change)", async () => {
  const generated = await generateHostDts();
  const checkedIn = await readFile(HOST_DTS_PATH, "utf8");
  assert.equal(checkedIn, generated);
  for (const iface of ["fs", "http", "shell", "kv", "log", "memory", "schedule", "gmail", "calendar", "types"]) {
    assert.match(generated, new RegExp(`declare module 'clawhive:host/${iface}@0\\.1\\.1'`), iface);
  }
  // 0.1.1's additions reach plugin authors.
  assert.match(generated, /export function walk\(path: string, options: WalkOptions\): WalkResult;/);
  assert.match(generated, /export function search\(path: string, options: SearchOptions\): SearchResult;/);
});

test("a WIT change (a new field, a doc comment) changes the generated bindings", async () => {
  const dir = await tempDir("clawhive-wit-change-");
  await cp(WIT, dir, { recursive: true });
  const before = await generateHostDts(dir);
  const fs = join(dir, "host", "fs.wit");
  const text = await readFile(fs, "utf8");
  const changed = text.replace(/record entry \{/, "record entry {\n    /// When the entry was made.\n    created-ms: u64,");
  assert.notEqual(changed, text, "the fixture edit applies");
  await writeFile(fs, changed);
  const after = await generateHostDts(dir);
  assert.notEqual(after, before);
  assert.match(after, /When the entry was made\.\s*\*\/\s*createdMs: bigint/);
});
