import { rmSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime, type RuntimeOptions } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { DEFAULT_STORE_FILE } from "../../runtime/runs/agent-setup.js";
import { openStore } from "../../runtime/store/index.js";
import { writeTestSecretKey } from "./secret-key.js";

export const FILES_PLUGIN = join(PROJECT_ROOT, "plugins", "files");
export const PROBE_PLUGIN = join(PROJECT_ROOT, "test", "plugins", "probe");

/**
 * Options that change what a fresh store holds after start (where it is, its key, its clock,
 * its plugins) or what a test sees of the install (its progress lines): a runtime given one
 * starts on an empty store, as before.
 */
const FRESH_STORE_OPTIONS = ["store", "storeUrl", "storeAuthToken", "secretKey", "secretKeyFile", "clock", "pluginDirs", "buildCacheDir", "onProgress"] as const;

let installedTemplate: Promise<string> | undefined;
/** Runtimes with none of FRESH_STORE_OPTIONS started in this process so far. */
let plainRuntimes = 0;

/**
 * A store file as a fresh runtime leaves it (migrated, the suite's key, files and probe
 * installed and audited), made once per test process. Installing writes each ~12 MB component
 * into the store and hashes it (~0.3 s of CPU): most of a test runtime's start. Each runtime
 * gets its own copy, so nothing one test does is seen by another; starting on it, the runtime
 * finds its plugins installed from the same bytes and installs nothing. Making the template
 * costs about one install, so it pays from a process's second runtime on.
 */
function installedStoreTemplate(): Promise<string> {
  installedTemplate ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "clawhive-test-template-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    await mkdir(join(dir, "agents"));
    await writeTestSecretKey(dir);
    const runtime = await Runtime.create({ dataDir: dir, agentsDir: join(dir, "agents"), pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN] });
    await runtime.close();
    // Everything into the one file, so a copy of it is the whole store.
    const file = join(dir, DEFAULT_STORE_FILE);
    const store = await openStore({ url: `file:${file}` });
    await store.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    await store.close();
    return file;
  })();
  return installedTemplate;
}

/**
 * Puts the installed store template at `file` (a store file about to be opened by a runtime
 * with the plugins files and probe, the suite's secret key and a real clock): for helpers that
 * start runtimes on a store file of their own choosing.
 */
export async function copyInstalledStore(file: string): Promise<void> {
  await copyFile(await installedStoreTemplate(), file);
}

/** A whole runtime on a temp data dir (own store, no agents); `dispose` closes and removes it. */
export async function testRuntime(options: Partial<RuntimeOptions> = {}): Promise<{ runtime: Runtime; dataDir: string; dispose: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), "clawhive-test-"));
  const agentsDir = join(dataDir, "agents");
  await mkdir(agentsDir);
  if (options.secretKey === undefined && options.secretKeyFile === undefined) await writeTestSecretKey(dataDir);
  // Most test files start one runtime: the first installs as any runtime does.
  if (FRESH_STORE_OPTIONS.every((key) => options[key] === undefined) && ++plainRuntimes > 1) await copyInstalledStore(join(dataDir, DEFAULT_STORE_FILE));
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

/** A temp data dir holding the suite's secret key: the compiled builds the suite sealed are trusted there, not compiled again. */
export async function tempDataDir(prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  await writeTestSecretKey(dir);
  return dir;
}

export interface TestAgentOptions {
  /** Mounts: `ro` ones are granted fs.read, `rw` ones fs.read and fs.write. */
  mounts?: Array<{ guest: string; host: string; mode?: "ro" | "rw" }>;
  plugins?: string[];
  /** Tools lowered to Safe (acknowledged), so tests of other things need no approval. */
  lowerToSafe?: string[];
  raise?: Array<{ tool: string; to: "guarded" | "unsafe" }>;
  extraGrants?: Record<string, unknown>;
  /** The agent's `limits` (a call's deadline, …). */
  limits?: Record<string, unknown>;
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
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  return name;
}
