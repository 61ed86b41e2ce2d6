/** buildAll: up-to-date builds are not read or rebuilt; a folder that cannot build is reported, not thrown. */
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { buildAll } from "../../../runtime/plugins/build-all.js";
import { cachedBuildSha } from "../../../runtime/plugins/build.js";
import { BuildReads } from "../../../runtime/plugins/build-reads.js";
import { defaultBuildCacheDir, pluginSourceDirs, PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
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

test("the first-party plugins' checks read the SDK and WIT once for all, and find the same cached builds as each alone", async () => {
  const cacheDir = defaultBuildCacheDir();
  const reads = new BuildReads();
  const dirs = await pluginSourceDirs();
  assert.ok(dirs.length > 1);
  for (const dir of dirs) {
    const alone = await cachedBuildSha(dir, { cacheDir });
    assert.ok(alone, `${dir} is built (npm run build:plugins)`);
    assert.deepEqual(await cachedBuildSha(dir, { cacheDir, reads }), alone);
  }
  // One read of a project file served every plugin's check: the same text each time.
  const sdkFile = join(PROJECT_ROOT, "plugins", "sdk-as", "index.ts");
  assert.equal(reads.text(sdkFile), reads.text(sdkFile));
});
