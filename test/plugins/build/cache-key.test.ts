import assert from "node:assert/strict";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { buildPlugin } from "../../../runtime/plugins/build.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { tempDir } from "../../helpers/runtime.js";

test("a changed plugin.json is a new build, not the cached one with the old manifest", async () => {
  const dir = await tempDir("clawhive-plugin-");
  const cache = await tempDir("clawhive-cache-");
  try {
    await cp(join(PROJECT_ROOT, "bench", "plugins", "echo"), dir, { recursive: true });
    const first = await buildPlugin(dir, { cacheDir: cache });
    // Control: nothing changed, the same cached artifact comes back.
    assert.equal((await buildPlugin(dir, { cacheDir: cache })).key, first.key);
    const manifest = JSON.parse(await readFile(join(dir, "plugin.json"), "utf8")) as { description: string };
    manifest.description = "the same plugin, described anew";
    await writeFile(join(dir, "plugin.json"), JSON.stringify(manifest));
    const second = await buildPlugin(dir, { cacheDir: cache });
    assert.notEqual(second.key, first.key);
    assert.equal(second.manifest.description, "the same plugin, described anew");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
});
