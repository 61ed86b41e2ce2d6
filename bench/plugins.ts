/**
 * Plugin install figures:
 * - plugin_install: installing the bench echo package (plugin.json + plugin.wasm, 11.5 MiB
 *   component) into a fresh store on a node that has never compiled it: hash checks, transpile,
 *   import check, describe in an unbound instance, blob written to the store;
 * - plugin_install_cached: the same on a node whose compile cache already holds it (another
 *   store, e.g. a second data dir);
 * - plugin_first_call: an installed plugin's first tool result on a runtime node that has its
 *   compiled cache but has not loaded it: read + verify the cached files, compile the core
 *   modules, instantiate, bind, call.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostCallHandler } from "../host-proxies/types.js";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../runtime/plugins/install/index.js";
import { buildComponent } from "../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../runtime/plugins/locations.js";
import { Sandbox } from "../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock } from "../runtime/store/index.js";
import { latency, type Metrics } from "./metrics.js";

const ECHO = join(PROJECT_ROOT, "bench", "plugins", "echo");
const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "unused" } });

export async function benchPlugins(options: { quick?: boolean } = {}): Promise<Metrics> {
  const rounds = options.quick ? 1 : 3;
  const root = await mkdtemp(join(tmpdir(), "clawhive-bench-plugins-"));
  try {
    const built = await buildComponent(ECHO, { cacheDir: defaultBuildCacheDir() });
    const pkg = join(root, "pkg");
    await mkdir(pkg);
    await writeFile(join(pkg, "plugin.json"), built.manifestText);
    await writeFile(join(pkg, "plugin.wasm"), built.bytes);

    const cold: number[] = [];
    const cached: number[] = [];
    const firstCall: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const cacheDir = join(root, `cache-${i}`);
      cold.push(await timedInstall(pkg, join(root, `cold-${i}`), cacheDir));
      cached.push(await timedInstall(pkg, join(root, `cached-${i}`), cacheDir));
      firstCall.push(await timedFirstCall(join(root, `cached-${i}`), cacheDir));
    }
    return {
      plugin_install: latency(cold.map((ms) => ms * 1000), "ms"),
      plugin_install_cached: latency(cached.map((ms) => ms * 1000), "ms"),
      plugin_first_call: latency(firstCall.map((ms) => ms * 1000), "ms"),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function withInstaller<T>(dir: string, cacheDir: string, work: (installer: PluginInstaller, sandbox: Sandbox) => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true });
  const store = await openStore({ url: `file:${join(dir, "s.db")}` });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  const sandbox = new Sandbox({ workers: 1, poolSize: 0 });
  try {
    return await work(new PluginInstaller({ registry: new PluginRegistry(store, { clock: systemClock }), sandbox, cacheDir }), sandbox);
  } finally {
    await sandbox.close();
    await store.close();
  }
}

function timedInstall(pkg: string, dir: string, cacheDir: string): Promise<number> {
  return withInstaller(dir, cacheDir, async (installer) => {
    const started = performance.now();
    await installer.install(pkg);
    return performance.now() - started;
  });
}

function timedFirstCall(dir: string, cacheDir: string): Promise<number> {
  return withInstaller(dir, cacheDir, async (installer, sandbox) => {
    await sandbox.probeWorkers(); // the worker is up, as on a running node
    const started = performance.now();
    const installed = (await installer.registry.get("bench-echo"))!;
    const { plugin } = await installer.load(installed);
    const instance = await sandbox.acquire(plugin, { label: "bench", handler });
    const result = await instance.call("echo", '{"x":1}');
    const elapsed = performance.now() - started;
    if (result !== '{"x":1}') throw new Error(`first call returned ${result}`);
    instance.destroy("bench done");
    return elapsed;
  });
}
