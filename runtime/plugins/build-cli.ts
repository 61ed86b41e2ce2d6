/**
 * `npm run build:plugins`: builds every first-party plugin (and the test plugins) that has no
 * up-to-date cached build. `--quiet` prints only when something is built.
 *
 * Only the components are built: their compiled form (glue, core modules) is made and sealed by
 * the runtime that installs or loads them, under its own secret key (see seal.ts); compiled here,
 * without that key, nothing would vouch for it.
 */
import { pluginSourceDirs, defaultBuildCacheDir } from "./locations.js";
import { buildComponent } from "./build.js";

const quiet = process.argv.includes("--quiet");
const cacheDir = defaultBuildCacheDir();
const dirs = await pluginSourceDirs({ includeTests: true });
const started = Date.now();
for (const dir of dirs) {
  try {
    const built = await buildComponent(dir, { cacheDir, onProgress: (line) => console.log(line) });
    if (!quiet) console.log(`${built.manifest.name}@${built.manifest.version}: sha256 ${built.sha256}`);
  } catch (error) {
    console.error(`build failed for ${dir}: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
if (!quiet) console.log(`${dirs.length} plugin(s) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
