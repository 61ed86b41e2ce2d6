import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime, type RuntimeOptions } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

export const FILES_PLUGIN = join(PROJECT_ROOT, "plugins", "files");
export const PROBE_PLUGIN = join(PROJECT_ROOT, "test", "plugins", "probe");

/** A whole runtime on a temp data dir; `dispose` closes it and removes the dir. */
export async function testRuntime(options: Partial<RuntimeOptions> = {}): Promise<{ runtime: Runtime; dataDir: string; dispose: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-test-"));
  const runtime = await Runtime.create({ dataDir, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], ...options });
  return {
    runtime,
    dataDir,
    dispose: async () => {
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function tempDir(prefix = "clawhive-ws-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}
