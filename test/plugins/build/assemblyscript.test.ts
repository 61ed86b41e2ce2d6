/**
 * The AssemblyScript build path: the export section rewritten to the canonical ABI's names (and
 * nothing else let through), the manifest's `language`, and whole builds of a plugin folder:
 * cached by input hash, rebuilt when a source changes, and a clear error for a plugin that does
 * not compile.
 */
import assert from "node:assert/strict";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { canonicalExports, renameExports } from "../../../runtime/plugins/assemblyscript-build.js";
import { buildComponent } from "../../../runtime/plugins/build.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { parsePluginManifest } from "../../../runtime/plugins/manifest.js";
import { watToWasm } from "../../helpers/extism-probe.js";
import { tempDir } from "../../helpers/runtime.js";

const TOOLS = "clawhive:plugin/tools@0.1.0";
const exportsOf = (bytes: Uint8Array) => WebAssembly.Module.exports(new WebAssembly.Module(new Uint8Array(bytes))).map((e) => `${e.kind}:${e.name}`);

/** A core module exporting `names` (functions) and a memory. */
const coreWith = (names: string[]) =>
  watToWasm(`(module (memory (export "memory") 1) (func $f (param i32 i32 i32 i32) (result i32) (i32.const 0))\n${names.map((n) => `(export "${n}" (func $f))`).join("\n")})`);

const SDK_EXPORTS = ["cabi_realloc", "describe", "call", "post_describe", "post_call"];

test("the SDK's exports are renamed to the canonical ABI's names; memory and cabi_realloc keep theirs", async () => {
  const renamed = canonicalExports(await coreWith(SDK_EXPORTS));
  assert.deepEqual(exportsOf(renamed).sort(), [
    "function:cabi_post_clawhive:plugin/tools@0.1.0#call",
    "function:cabi_post_clawhive:plugin/tools@0.1.0#describe",
    "function:cabi_realloc",
    `function:${TOOLS}#call`,
    `function:${TOOLS}#describe`,
    "memory:memory",
  ]);
  // Every other byte is the module's own: renaming back gives the input.
  const back = Object.fromEntries(Object.entries({ describe: `${TOOLS}#describe`, call: `${TOOLS}#call`, post_describe: `cabi_post_${TOOLS}#describe`, post_call: `cabi_post_${TOOLS}#call` }).map(([a, b]) => [b, a]));
  assert.deepEqual(renameExports(renamed, back), await coreWith(SDK_EXPORTS));
});

const REFUSED: Array<[string, string[], RegExp]> = [
  ["an export outside the contract", [...SDK_EXPORTS, "helper"], /exports helper: not part of the tools contract/],
  ["a name that only looks canonical", [...SDK_EXPORTS, `${TOOLS}#other`], /not part of the tools contract/],
  ["no post-return for call", SDK_EXPORTS.filter((n) => n !== "post_call"), /exports missing: cabi_post_clawhive:plugin\/tools@0\.1\.0#call/],
  ["no allocator", SDK_EXPORTS.filter((n) => n !== "cabi_realloc"), /exports missing: cabi_realloc/],
];

for (const [label, names, expected] of REFUSED) {
  test(`refused: ${label}; control: the SDK's five pass`, async () => {
    assert.throws(() => canonicalExports(bytesOf(names)), expected);
    assert.doesNotThrow(() => canonicalExports(bytesOf(SDK_EXPORTS)));
  });
}

const built = new Map<string, Uint8Array>();
const bytesOf = (names: string[]) => built.get(names.join(","))!;
test.before(async () => {
  for (const names of [SDK_EXPORTS, ...REFUSED.map(([, n]) => n)]) built.set(names.join(","), await coreWith(names));
});

test("manifest language: typescript or assemblyscript; anything else names the field", () => {
  const base = { name: "p", version: "0.1.0", description: "d", publisher: "t", capabilities: [], tools: {} };
  assert.equal(parsePluginManifest(JSON.stringify({ ...base, language: "assemblyscript" }), "plugin.json").language, "assemblyscript");
  assert.equal(parsePluginManifest(JSON.stringify(base), "plugin.json").language, undefined);
  assert.throws(() => parsePluginManifest(JSON.stringify({ ...base, language: "cobol" }), "plugin.json"), /plugin\.json: language: expected typescript or assemblyscript/);
});

test("a plugin folder builds with asc; cached by its inputs; a changed source is a new build; a compile error is clear", async () => {
  const dir = await tempDir("clawhive-as-plugin-");
  const cache = await tempDir("clawhive-as-cache-");
  try {
    await cp(join(PROJECT_ROOT, "bench", "plugins", "as-echo"), dir, { recursive: true });
    const lines: string[] = [];
    const first = await buildComponent(dir, { cacheDir: cache, onProgress: (l) => lines.push(l) });
    assert.ok(first.bytes.length < 128 * 1024, `${first.bytes.length} bytes`);
    assert.match(lines.join("\n"), /bench-as-echo: compiling AssemblyScript/);
    // Control: nothing changed, the cached build comes back without a compile.
    lines.length = 0;
    assert.equal((await buildComponent(dir, { cacheDir: cache, onProgress: (l) => lines.push(l) })).sha256, first.sha256);
    assert.deepEqual(lines, []);
    const entry = join(dir, "assembly", "index.ts");
    const source = await readFile(entry, "utf8");
    await writeFile(entry, source.replace('"Returns its input."', '"Returns its input, again."'));
    const second = await buildComponent(dir, { cacheDir: cache });
    assert.notEqual(second.sha256, first.sha256);
    await writeFile(entry, `${source}\nconst broken: i32 = "not a number";\n`);
    await assert.rejects(buildComponent(dir, { cacheDir: cache }), (e: Error & { code?: string }) => {
      assert.equal(e.code, "build_failed");
      assert.match(e.message, /assemblyscript failed/);
      assert.match(e.message, /not assignable|Type '~lib\/string\/String' is not assignable/);
      assert.match(e.message, /assembly\/index\.ts/);
      return true;
    });
    await writeFile(join(dir, "plugin.json"), (await readFile(join(dir, "plugin.json"), "utf8")).replace('"assembly/index.ts"', '"assembly/missing.ts"'));
    await assert.rejects(buildComponent(dir, { cacheDir: cache }), /source: assembly\/missing\.ts is not a \.ts file in the plugin's folder/);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
});
