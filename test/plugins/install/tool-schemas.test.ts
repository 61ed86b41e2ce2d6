/**
 * A plugin's describe output is untrusted: a tool input schema the host cannot bound or compile
 * refuses the install, with the tool named; a plain schema installs (the control).
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ClawhiveError } from "../../../runtime/errors.js";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../../../runtime/plugins/install/index.js";
import { RunRecords, runMigrations } from "../../../runtime/runs/records.js";
import { Sandbox } from "../../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../../../runtime/store/index.js";
import { extismModulePackage } from "../../helpers/extism-modules.js";
import { tempDir } from "../../helpers/runtime.js";

let sandbox: Sandbox;
let store: Store;
let dir: string;
let installer: PluginInstaller;

before(async () => {
  dir = await tempDir("clawhive-schemas-");
  sandbox = new Sandbox({ workers: 1, poolSize: 0 });
  store = await openStore({ url: `file:${join(dir, "s.db")}` });
  await applyMigrations(store, runMigrations, { clock: systemClock });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  const records = new RunRecords(store);
  installer = new PluginInstaller({ registry: new PluginRegistry(store, { clock: systemClock }), sandbox, cacheDir: join(dir, "cache"), runsUsing: (n) => records.unfinishedUsing(n) });
});
after(async () => {
  await sandbox.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const nestedSchema = (depth: number): unknown => {
  let s: unknown = { type: "object" };
  for (let i = 0; i < depth; i++) s = { not: s };
  return s;
};

const cases: Array<[string, unknown, RegExp | undefined]> = [
  ["control: a plain schema", { type: "object", properties: { q: { type: "string", pattern: "^[a-z]+$" } }, required: ["q"] }, undefined],
  ["control: unknown keywords are ignored", { type: "object", "x-ui": { order: 1 } }, undefined],
  ["an exponential pattern", { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } }, /tool run: its input schema does not compile as JSON Schema draft-07: .*backtrack exponentially/],
  ["a remote $ref", { $ref: "https://schemas.example/evil.json" }, /tool run: its input schema does not compile/],
  ["nested 100 deep", nestedSchema(100), /tool run: inputSchema.*nested more than 64 levels deep/],
  ["a type that is no type", { type: "objekt" }, /tool run: its input schema does not compile/],
];

let n = 0;
for (const [name, inputSchema, refused] of cases) {
  test(`install: ${name}`, async () => {
    const pkg = await extismModulePackage(`schema-${++n}`, { inputSchema });
    try {
      const installing = installer.install(pkg.dir);
      if (refused === undefined) {
        assert.equal((await installing).action, "installed");
      } else {
        await assert.rejects(installing, (e: unknown) => e instanceof ClawhiveError && e.code === "tool_schema_invalid" && refused.test(e.message) && e.message.startsWith(`plugin schema-${n}: `));
      }
    } finally {
      await rm(pkg.dir, { recursive: true, force: true });
    }
  });
}
