/**
 * Plugin build figures:
 * - plugin_component_mb (group `build`): the largest first-party plugin component, as built;
 *   plugin_component_mb_total: all of them;
 * - plugin_build_s (group `build`): building the `files` plugin from source into an empty build
 *   cache (bundle + componentize), the slowest step of a first start;
 * - first_start_s (group `first-start`): `clawhive serve` on a fresh data dir with an empty build
 *   cache (a fresh clone's first `npm start`, after `npm ci`), until it listens: every
 *   first-party plugin built, compiled and installed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildComponent } from "../runtime/plugins/build.js";
import { defaultBuildCacheDir, firstPartyPluginDir, pluginSourceDirs } from "../runtime/plugins/locations.js";
import { value, type Metrics } from "./metrics.js";
import { startServer } from "./server.js";

export async function benchBuild(): Promise<Metrics> {
  const sizes: number[] = [];
  for (const dir of await pluginSourceDirs()) sizes.push((await buildComponent(dir, { cacheDir: defaultBuildCacheDir() })).bytes.length / 1048576);
  const cacheDir = await mkdtemp(join(tmpdir(), "clawhive-bench-build-"));
  try {
    const started = performance.now();
    await buildComponent(firstPartyPluginDir("files"), { cacheDir });
    return {
      plugin_component_mb: value(Math.max(...sizes), "MB"),
      plugin_component_mb_total: value(sizes.reduce((a, b) => a + b, 0), "MB"),
      plugin_build_s: value((performance.now() - started) / 1000, "s"),
    };
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

export async function benchFirstStart(): Promise<Metrics> {
  const cacheDir = await mkdtemp(join(tmpdir(), "clawhive-bench-first-start-"));
  try {
    const started = performance.now();
    const server = await startServer({ env: { CLAWHIVE_BUILD_CACHE: cacheDir } });
    const seconds = (performance.now() - started) / 1000;
    await server.close();
    return { first_start_s: value(seconds, "s") };
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}
