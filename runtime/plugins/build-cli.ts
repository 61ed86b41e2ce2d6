/**
 * `npm run build:plugins`: builds every first-party plugin (and the test plugins) that has no
 * up-to-date cached build. `--quiet` prints only when something is built.
 */
import { pluginSourceDirs, defaultBuildCacheDir } from "./locations.js";
import { buildPlugin } from "./build.js";

const quiet = process.argv.includes("--quiet");
const cacheDir = defaultBuildCacheDir();
const dirs = await pluginSourceDirs({ includeTests: true });
const started = Date.now();
for (const dir of dirs) {
  try {
    const artifact = await buildPlugin(dir, { cacheDir, onProgress: (line) => console.log(line) });
    if (!quiet) console.log(`${artifact.manifest.name}@${artifact.manifest.version}: ${artifact.dir}`);
  } catch (error) {
    console.error(`build failed for ${dir}: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
if (!quiet) console.log(`${dirs.length} plugin(s) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
