import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime, type RuntimeOptions } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { writeTestSecretKey } from "./secret-key.js";

export const FILES_PLUGIN = join(PROJECT_ROOT, "plugins", "files");
export const PROBE_PLUGIN = join(PROJECT_ROOT, "test", "plugins", "probe");

/** A whole runtime on a temp data dir (own store, no agents); `dispose` closes and removes it. */
export async function testRuntime(options: Partial<RuntimeOptions> = {}): Promise<{ runtime: Runtime; dataDir: string; dispose: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-test-"));
  const agentsDir = join(dataDir, "agents");
  await mkdir(agentsDir);
  if (options.secretKey === undefined && options.secretKeyFile === undefined) await writeTestSecretKey(dataDir);
  const runtime = await Runtime.create({ dataDir, agentsDir, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], ...options });
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

export interface TestAgentOptions {
  /** Mounts: `ro` ones are granted fs.read, `rw` ones fs.read and fs.write. */
  mounts?: Array<{ guest: string; host: string; mode?: "ro" | "rw" }>;
  plugins?: string[];
  /** Tools lowered to Safe (acknowledged), so tests of other things need no approval. */
  lowerToSafe?: string[];
  raise?: Array<{ tool: string; to: "guarded" | "unsafe" }>;
  extraGrants?: Record<string, unknown>;
}

/** Defines an agent on `runtime` from a few options; returns its name. */
export async function defineTestAgent(runtime: Runtime, name: string, options: TestAgentOptions = {}): Promise<string> {
  const mounts = options.mounts ?? [];
  const grants: Record<string, unknown> = { log: {}, ...options.extraGrants };
  if (mounts.length > 0) grants["fs.read"] = { mounts: mounts.map((m) => ({ guest: m.guest, host: m.host })) };
  const writable = mounts.filter((m) => m.mode === "rw");
  if (writable.length > 0) grants["fs.write"] = { mounts: writable.map((m) => ({ guest: m.guest, host: m.host, mode: "rw" })) };
  await runtime.defineAgent({
    name,
    description: `test agent ${name}`,
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: (options.plugins ?? ["files", "probe"]).map((p) => ({ name: p, version: "*" })),
    grants,
    approvals: {
      lower_risk: (options.lowerToSafe ?? []).map((tool) => ({ tool, to: "safe", acknowledged: true })),
      raise_risk: options.raise ?? [],
    },
  });
  return name;
}
