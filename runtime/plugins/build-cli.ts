/**
 * `npm run build:plugins`: builds every first-party plugin (and the test plugins) that has no
 * up-to-date cached build, a few at once (build-all.ts). `--quiet` prints only when something
 * is built.
 *
 * Only the components are built: their compiled form (glue, core modules) is made and sealed by
 * the runtime that installs or loads them, under its own secret key (see seal.ts); compiled here,
 * without that key, nothing would vouch for it.
 */
import { pluginSourceDirs, defaultBuildCacheDir } from "./locations.js";
import { buildAll } from "./build-all.js";

const quiet = process.argv.includes("--quiet");
const cacheDir = defaultBuildCacheDir();
const dirs = await pluginSourceDirs({ includeTests: true });
const started = Date.now();
for (const result of await buildAll(dirs, { cacheDir, onProgress: (line) => console.log(line) })) {
  if (result.error) {
    console.error(`build failed for ${result.dir}: ${result.error.message}`);
    process.exitCode = 1;
  } else if (!quiet && result.built) {
    console.log(`${result.built.name}: sha256 ${result.built.sha256}${result.built.cached ? " (cached)" : ""}`);
  }
}
if (!quiet) console.log(`${dirs.length} plugin(s) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
