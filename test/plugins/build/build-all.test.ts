/** buildAll: up-to-date builds are not read or rebuilt; a folder that cannot build is reported, not thrown. */
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { buildAll } from "../../../runtime/plugins/build-all.js";
import { cachedBuildSha } from "../../../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { tempDir } from "../../helpers/runtime.js";

test("buildAll reports cached builds without building, and a broken folder as an error beside them", async () => {
  const echo = join(PROJECT_ROOT, "bench", "plugins", "echo");
  const cacheDir = defaultBuildCacheDir();
  const cached = await cachedBuildSha(echo, { cacheDir });
  assert.ok(cached, "the bench echo plugin is built (npm run build:plugins)");
  const broken = await tempDir("clawhive-plugin-");
  try {
    await mkdir(join(broken, "src"));
    await writeFile(join(broken, "plugin.json"), "{ not json");
    const lines: string[] = [];
    const [ok, bad] = await buildAll([echo, broken], { cacheDir, onProgress: (line) => lines.push(line) });
    assert.deepEqual(ok, { dir: echo, built: { name: cached.name, sha256: cached.sha256, cached: true } });
    assert.equal(bad!.dir, broken);
    assert.ok(bad!.error instanceof Error);
    assert.match(lines.join("\n"), /\[1\/1\] .* failed after/);
  } finally {
    await rm(broken, { recursive: true, force: true });
  }
});
