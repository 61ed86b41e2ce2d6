import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { PluginEventInput } from "../../../runtime/audit/index.js";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../../../runtime/plugins/install/index.js";
import { defaultBuildCacheDir } from "../../../runtime/plugins/locations.js";
import { RunRecords, runMigrations } from "../../../runtime/runs/records.js";
import { Sandbox } from "../../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../../../runtime/store/index.js";
import { echoComponent, writePackage } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";

// Every plugin change, allowed or refused, is one audit record naming the plugin (as far as it
// was read), its version, sha256 and publisher, the decision and reason, and who asked.

let root: string;
let sandbox: Sandbox;
let store: Store;
let events: PluginEventInput[];
let installer: PluginInstaller;
let records: RunRecords;
let echo: Awaited<ReturnType<typeof echoComponent>>;

before(async () => {
  root = await tempDir("clawhive-install-audit-");
  sandbox = new Sandbox({ workers: 1, poolSize: 0 });
  store = await openStore({ url: `file:${join(root, "s.db")}` });
  await applyMigrations(store, runMigrations, { clock: systemClock });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  records = new RunRecords(store);
  events = [];
  installer = new PluginInstaller({
    registry: new PluginRegistry(store, { clock: systemClock }),
    sandbox,
    cacheDir: defaultBuildCacheDir(),
    runsUsing: (name) => records.unfinishedUsing(name),
    audit: async (event) => void events.push(event),
  });
  echo = await echoComponent();
});

after(async () => {
  await sandbox.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const manifest = (overrides: Record<string, unknown> = {}) => ({ ...echo.manifest, ...overrides });
const by = "cli:alice";

/** Runs `change`; returns the one record it wrote (and the error, if it was refused). */
async function recorded(change: () => Promise<unknown>): Promise<{ event: PluginEventInput; error?: { code?: string; message: string } }> {
  events.length = 0;
  let error: { code?: string; message: string } | undefined;
  try {
    await change();
  } catch (caught) {
    error = caught as { code?: string; message: string };
  }
  assert.equal(events.length, 1, JSON.stringify(events));
  return { event: events[0]!, ...(error ? { error } : {}) };
}

describe("plugin changes are audited, allowed and refused", () => {
  it("an install: allowed, with name, version, sha256, publisher and who", async () => {
    const { event, error } = await recorded(async () => installer.install(await pkg("ok", manifest()), { by }));
    assert.equal(error, undefined);
    assert.deepEqual(
      { ...event, origin: undefined },
      { action: "install", decision: "allow", name: "bench-echo", version: manifest().version, sha256: echo.sha256, publisher: manifest().publisher, origin: undefined, by, reason: "installed", message: null },
    );
  });

  const refusals: Array<{ name: string; change: () => Promise<unknown>; action: string; reason: string; plugin: string; mentions?: RegExp }> = [
    { name: "a sha256 mismatch", change: async () => installer.install(await pkg("bad-hash", manifest({ name: "other" })), { by, sha256: "0".repeat(64) }), action: "install", reason: "blob_tampered", plugin: "" },
    { name: "an import the manifest does not cover", change: async () => installer.install(await pkg("under", manifest({ name: "under", capabilities: [] })), { by }), action: "install", reason: "imports_not_declared", plugin: "under" },
    { name: "a name clash", change: async () => installer.install(await pkg("clash", manifest({ publisher: "someone else" })), { by }), action: "install", reason: "plugin_exists", plugin: "bench-echo" },
    { name: "a lookalike name", change: async () => installer.install(await pkg("lookalike", manifest({ name: "bench-ech0" })), { by }), action: "install", reason: "plugin_name_similar", plugin: "bench-ech0", mentions: /bench-ech0 .*bench-echo/ },
    { name: "a widening upgrade not accepted", change: async () => installer.upgrade("bench-echo", await pkg("wider", manifest({ version: "9.0.0", capabilities: ["fs.read", "kv", "log"] })), { by }), action: "upgrade", reason: "upgrade_needs_acceptance", plugin: "bench-echo" },
    { name: "a removal of what is not installed", change: async () => installer.remove("nothing-here", { by }), action: "remove", reason: "not_found", plugin: "nothing-here" },
  ];
  for (const row of refusals) {
    it(`refused: ${row.name}`, async () => {
      const { event, error } = await recorded(row.change);
      assert.equal(error?.code, row.reason);
      assert.equal(event.action, row.action);
      assert.equal(event.decision, "deny");
      assert.equal(event.reason, row.reason);
      assert.equal(event.by, by);
      assert.equal(event.message, error?.message);
      if (row.plugin !== "") assert.equal(event.name, row.plugin);
      if (row.mentions) assert.match(error!.message, row.mentions);
    });
  }

  it("a lookalike name installs when the person says it is another plugin", async () => {
    const { event } = await recorded(async () => installer.install(await pkg("lookalike-ok", manifest({ name: "bench-ech0" })), { by, allowSimilarName: true }));
    assert.deepEqual([event.decision, event.name, event.reason], ["allow", "bench-ech0", "installed"]);
  });

  it("an accepted upgrade and a removal are allowed records; a removal while a run uses the plugin is refused", async () => {
    const upgraded = await recorded(async () => installer.upgrade("bench-echo", await pkg("wider-ok", manifest({ version: "9.0.0", capabilities: ["fs.read", "kv", "log"] })), { by, accept: true }));
    assert.deepEqual([upgraded.event.action, upgraded.event.decision, upgraded.event.version, upgraded.event.reason], ["upgrade", "allow", "9.0.0", "upgraded"]);
    await records.create({ id: "run_1", traceId: "t", taskId: "k", parentRunId: null, agent: "a", plugins: ["bench-echo"], task: null, taskGrants: null, createdAt: 1 });
    const inUse = await recorded(() => installer.remove("bench-echo", { by }));
    assert.deepEqual([inUse.event.decision, inUse.event.reason, inUse.event.sha256], ["deny", "plugin_in_use", echo.sha256]);
    await records.end("run_1", null, 2);
    const removed = await recorded(() => installer.remove("bench-echo", { by }));
    assert.deepEqual([removed.event.action, removed.event.decision, removed.event.version, removed.event.reason], ["remove", "allow", "9.0.0", "removed"]);
  });
});

let counter = 0;
function pkg(name: string, m: Record<string, unknown>): Promise<string> {
  return writePackage(root, `${name}-${counter++}`, m, echo.bytes);
}
