/**
 * Installing typed components: the manifest names every exported function (risk, capabilities)
 * and nothing else; a component's real imports are checked as any plugin's; a type JSON cannot
 * carry refuses the install with the function and type named. Each refusal beside a control.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../../runtime/plugins/install/index.js";
import { proposeManifest } from "../../runtime/plugins/install/propose.js";
import { RunRecords, runMigrations } from "../../runtime/runs/records.js";
import { Sandbox } from "../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../../runtime/store/index.js";
import { writePackage } from "../helpers/plugin-packages.js";
import { tempDir } from "../helpers/runtime.js";
import { typedDummy } from "../helpers/typed-components.js";

let sandbox: Sandbox;
let store: Store;
let dir: string;
let installer: PluginInstaller;
let host = "";

before(async () => {
  dir = await tempDir("clawhive-typed-install-");
  sandbox = new Sandbox({ workers: 1, poolSize: 0 });
  store = await openStore({ url: `file:${join(dir, "s.db")}` });
  await applyMigrations(store, runMigrations, { clock: systemClock });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  const records = new RunRecords(store);
  installer = new PluginInstaller({ registry: new PluginRegistry(store, { clock: systemClock }), sandbox, cacheDir: join(dir, "cache"), runsUsing: (n) => records.unfinishedUsing(n) });
  host = await hostPackages();
});
after(async () => {
  await sandbox.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const WEATHER = `package test:typed;
interface weather {
  record report { city: string, celsius: f32 }
  get-report: func(city: string) -> result<report, string>;
}`;

function manifest(name: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { name, version: "0.1.0", description: "typed test", publisher: "tests", contract: "typed", capabilities: [], tools: {}, ...extra };
}

const cases: Array<[string, string, Record<string, unknown>, RegExp | undefined]> = [
  // [label, world items, manifest fields, refusal expected (undefined: installs)]
  ["control: each function declared", "export weather;\n  export ping: func() -> string;", { tools: { weather_get_report: { risk: "safe" }, ping: { risk: "guarded" } } }, undefined],
  ["a function the manifest does not declare", "export weather;\n  export ping: func() -> string;", { tools: { ping: { risk: "safe" } } }, /exports weather_get_report, not declared in plugin\.json tools/],
  ["a declared tool the component does not export", "export ping: func() -> string;", { tools: { ping: { risk: "safe" }, pong: { risk: "safe" } } }, /declares pong, which the component does not export/],
  ["a typed component installed as describe/call", "export ping: func() -> string;", { contract: undefined, tools: { ping: { risk: "safe" } } }, /exports typed functions \(ping\), not clawhive:plugin\/tools; say "contract": "typed"/],
  ["a handle-typed function", "export blobs;", { tools: { blobs_open: { risk: "safe" } } }, /function test:typed\/blobs\.open: its result has type own<blob>/],
  ["control: a world's own record imports nothing from the host", "record pair { a: u8 }\n  export swap: func(p: pair) -> pair;", { tools: { swap: { risk: "safe" } } }, undefined],
  ["a host import without its capability", "import clawhive:host/fs@0.1.1;\n  export ping: func() -> string;", { tools: { ping: { risk: "safe" } } }, /clawhive:host\/fs@0\.1\.1: needs one of fs\.read, fs\.write declared/],
  ["control: the host import with its capability", "import clawhive:host/fs@0.1.1;\n  export ping: func() -> string;", { capabilities: ["fs.read"], tools: { ping: { risk: "safe", capabilities: ["fs.read"] } } }, undefined],
];

for (const [index, [label, items, fields, expected]] of cases.entries()) {
  test(`install of a typed component: ${label}`, async () => {
    const wit = `${WEATHER}\ninterface blobs { resource blob; open: func() -> blob; }\nworld root {\n  ${items}\n}\n${items.includes("clawhive:host") ? host : ""}`;
    const { bytes } = await typedDummy(wit);
    const m = manifest(`typed-${index}`, fields);
    if (fields.contract === undefined && "contract" in fields) delete m.contract;
    const pkg = await writePackage(dir, `pkg-${index}`, m, bytes);
    const attempt = installer.install(pkg);
    if (expected === undefined) {
      const { plugin } = await attempt;
      for (const tool of plugin.tools) assert.equal(tool.risk, (m.tools as Record<string, { risk: string }>)[tool.name]!.risk);
      return;
    }
    await assert.rejects(attempt, (error: Error) => {
      assert.match(error.message, expected);
      return true;
    });
    assert.equal(await installer.registry.get(`typed-${index}`), undefined);
  });
}

test("a proposed manifest reads capabilities from the imports and the tools from the exports", async () => {
  const { bytes } = await typedDummy(`${WEATHER}\nworld root {\n  import clawhive:host/fs@0.1.1;\n  export weather;\n}\n${host}`);
  const { manifest: proposed, lines } = await proposeManifest(bytes, "/x/Weather Tool.wasm");
  assert.equal(proposed.name, "weather-tool");
  assert.equal(proposed.contract, "typed");
  assert.deepEqual(proposed.capabilities, ["fs.read", "fs.write"]);
  // Writes default to Guarded: the proposal takes the highest default of what the imports allow.
  assert.deepEqual(proposed.tools, { weather_get_report: { risk: "guarded", capabilities: ["fs.read", "fs.write"] } });
  assert.ok(lines.some((l) => /tool weather_get_report \(guarded\)/.test(l)));
  const none = await typedDummy(`${WEATHER}\nworld root {\n  export weather;\n}\n`);
  assert.deepEqual((await proposeManifest(none.bytes, "w.wasm")).manifest.tools, { weather_get_report: { risk: "safe", capabilities: [] } });
});

test("no manifest is proposed for a core module with no tools or an untypable component", async () => {
  await assert.rejects(proposeManifest(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), "core.wasm"), { code: "manifest_unproposable", message: /export memory: missing/ });
  const { bytes } = await typedDummy(`package test:typed;\ninterface blobs { resource blob; open: func() -> blob; }\nworld root {\n  export blobs;\n}\n`);
  await assert.rejects(proposeManifest(bytes, "b.wasm"), { code: "wit_type_unmappable" });
});

/** clawhive's host package, nested, for worlds that import it. */
async function hostPackages(): Promise<string> {
  const { readdir, readFile } = await import("node:fs/promises");
  const { PROJECT_ROOT } = await import("../../runtime/plugins/locations.js");
  const from = join(PROJECT_ROOT, "wit", "host");
  const bodies: string[] = [];
  let pkg = "";
  for (const name of (await readdir(from)).filter((n) => n.endsWith(".wit")).sort()) {
    const text = await readFile(join(from, name), "utf8");
    pkg = /^package\s+([^;]+);/m.exec(text)![1]!;
    bodies.push(text.replace(/^package\s+[^;]+;/m, ""));
  }
  return `package ${pkg} {\n${bodies.join("\n")}\n}\n`;
}
