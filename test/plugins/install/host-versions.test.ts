/**
 * Host versions at install: `clawhive:host` grows only additively within 0.x, so a plugin built
 * against an older version than the runtime's (0.1.0, before fs walk and search) still passes
 * the import check; a version the runtime has never served is refused there.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ClawhiveError } from "../../../runtime/errors.js";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../../../runtime/plugins/install/index.js";
import { defaultBuildCacheDir } from "../../../runtime/plugins/locations.js";
import { RunRecords, runMigrations } from "../../../runtime/runs/records.js";
import { Sandbox } from "../../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../../../runtime/store/index.js";
import { dummyComponent, writePackage } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";

let root: string;
let sandbox: Sandbox;

before(async () => {
  root = await tempDir("clawhive-install-versions-");
  sandbox = new Sandbox({ workers: 1, poolSize: 0 });
});

after(async () => {
  await sandbox.close();
  await rm(root, { recursive: true, force: true });
});

async function place(): Promise<{ store: Store; installer: PluginInstaller; registry: PluginRegistry; close: () => Promise<void> }> {
  const dir = await tempDir("clawhive-store-");
  const store = await openStore({ url: `file:${join(dir, "s.db")}` });
  await applyMigrations(store, runMigrations, { clock: systemClock });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  const registry = new PluginRegistry(store, { clock: systemClock });
  const records = new RunRecords(store);
  const installer = new PluginInstaller({ registry, sandbox, cacheDir: defaultBuildCacheDir(), runsUsing: (n) => records.unfinishedUsing(n) });
  return { store, installer, registry, close: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
}

test("a plugin built against clawhive:host@0.1.0 (before fs walk and search) still passes the import check", async () => {
  const { installer, registry, close } = await place();
  try {
    // The 0.1.0 fs interface as it was released: no walk, no search.
    const v010 = "package clawhive:host@0.1.0 {\ninterface fs { read: func(path: string) -> list<u8>; }\n}";
    const old = await dummyComponent(["clawhive:host/fs@0.1.0"], v010);
    const pkg = await writePackage(root, "pkg-old-host", { name: "old-host", version: "1.0.0", description: "d", publisher: "someone", capabilities: ["fs.read"], tools: {} }, old.bytes);
    // Past the import check, the dummy's code traps at describe (it has none).
    await assert.rejects(installer.install(pkg), (e: ClawhiveError) => e.code !== "imports_not_declared");
    // Deny beside it: a version this runtime has never served is refused at the import check.
    const v012 = "package clawhive:host@0.1.2 {\ninterface fs { read: func(path: string) -> list<u8>; }\n}";
    const newer = await writePackage(root, "pkg-new-host", { name: "new-host", version: "1.0.0", description: "d", publisher: "someone", capabilities: ["fs.read"], tools: {} }, (await dummyComponent(["clawhive:host/fs@0.1.2"], v012)).bytes);
    await assert.rejects(installer.install(newer), (e: ClawhiveError) => e.code === "imports_not_declared" && /fs@0\.1\.2: this runtime serves clawhive:host@0\.1\.0, @0\.1\.1/.test(e.message));
    assert.deepEqual(await registry.list(), []);
  } finally {
    await close();
  }
});

