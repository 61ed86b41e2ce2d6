/**
 * A plugin build sees only the plugin's own folder (its node_modules included) and the SDK.
 * Each refusal has a control beside it that must bundle; no refused build may carry the secret.
 */
import assert from "node:assert/strict";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { InvalidInputError, PluginError } from "../../../runtime/errors.js";
import { buildComponent } from "../../../runtime/plugins/build.js";
import { bundlePlugin } from "../../../runtime/plugins/bundle.js";
import { tempDir } from "../../helpers/runtime.js";

const SECRET = "s3cret-outside-the-plugin";

/**
 * outside/
 *   secret.ts, node_modules/outside-pkg/    what no plugin build may read
 *   plugin/
 *     src/ok.ts, src/glob/one.ts, src/in-link.ts → ok.ts, src/out-link.ts → ../../secret.ts,
 *     src/up → ../..
 *     node_modules/inside-pkg/              the plugin's own package
 *     node_modules/escaping-pkg → ../../node_modules/outside-pkg
 */
let outside: string;
let plugin: string;

before(async () => {
  outside = await tempDir("clawhive-confine-");
  plugin = join(outside, "plugin");
  await writeFile(join(outside, "secret.ts"), `export const secret = "${SECRET}";\n`);
  await writeFile(join(outside, "secret.cjs"), `module.exports = "${SECRET}";\n`);
  await writeFile(join(outside, "1.ts"), `export const secret = "${SECRET}";\n`);
  await mkdir(join(outside, "node_modules", "outside-pkg"), { recursive: true });
  await writeFile(join(outside, "node_modules", "outside-pkg", "package.json"), JSON.stringify({ name: "outside-pkg", main: "index.js" }));
  await writeFile(join(outside, "node_modules", "outside-pkg", "index.js"), `export const secret = "${SECRET}";\n`);
  await mkdir(join(plugin, "src"), { recursive: true });
  await writeFile(join(plugin, "src", "ok.ts"), `export const secret = "inside";\n`);
  await mkdir(join(plugin, "src", "glob"));
  await writeFile(join(plugin, "src", "glob", "one.ts"), `export const secret = "inside";\n`);
  await symlink("ok.ts", join(plugin, "src", "in-link.ts"));
  await symlink("../../secret.ts", join(plugin, "src", "out-link.ts"));
  await symlink("../..", join(plugin, "src", "up"));
  await mkdir(join(plugin, "node_modules", "inside-pkg"), { recursive: true });
  await writeFile(join(plugin, "node_modules", "inside-pkg", "package.json"), JSON.stringify({ name: "inside-pkg", main: "index.js" }));
  await writeFile(join(plugin, "node_modules", "inside-pkg", "index.js"), `export const secret = "inside";\n`);
  await symlink("../../node_modules/outside-pkg", join(plugin, "node_modules", "escaping-pkg"));
});

after(async () => {
  await rm(outside, { recursive: true, force: true });
});

/** Bundles `src/<name>.ts` holding `code`. */
async function bundleEntry(name: string, code: string): Promise<string> {
  await writeFile(join(plugin, "src", `${name}.ts`), code);
  return bundlePlugin(plugin, `src/${name}.ts`);
}

const importOf = (specifier: string) => `import { secret } from ${JSON.stringify(specifier)};\nexport const out = secret;\n`;

describe("an import that leads out of the plugin folder is refused, naming the import", () => {
  // Functions: the folders exist only once `before` has run.
  const cases: Array<{ name: string; code: () => string; names: () => string; control: () => string }> = [
    { name: "relative", code: () => importOf("../../secret.ts"), names: () => '"../../secret.ts"', control: () => importOf("./ok.ts") },
    { name: "absolute", code: () => importOf(join(outside, "secret.ts")), names: () => join(outside, "secret.ts"), control: () => importOf(join(plugin, "src", "ok.ts")) },
    { name: "file-symlink", code: () => importOf("./out-link.ts"), names: () => '"./out-link.ts"', control: () => importOf("./in-link.ts") },
    { name: "dir-symlink", code: () => importOf("./up/secret.ts"), names: () => '"./up/secret.ts"', control: () => importOf("./up/plugin/src/ok.ts") },
    { name: "parent-package", code: () => importOf("outside-pkg"), names: () => '"outside-pkg"', control: () => importOf("inside-pkg") },
    { name: "package-symlink", code: () => importOf("escaping-pkg"), names: () => '"escaping-pkg"', control: () => importOf("inside-pkg") },
    {
      name: "require",
      code: () => `declare const require: (p: string) => string;\nexport const out = require("../../secret.cjs");\n`,
      names: () => '"../../secret.cjs"',
      control: () => `declare const require: (p: string) => unknown;\nexport const out = require("./ok.ts");\n`,
    },
    {
      name: "not-an-sdk-module",
      code: () => importOf("@clawhive/plugin-sdk/../../../secret.ts"),
      names: () => '"@clawhive/plugin-sdk/../../../secret.ts"',
      control: () => `import { fail } from "@clawhive/plugin-sdk";\nimport { resolvePath } from "@clawhive/plugin-sdk/fs";\nexport const out = [fail, resolvePath];\n`,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const error = await bundleEntry(`refused-${c.name}`, c.code()).then(
        () => assert.fail("bundled"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof PluginError, String(error));
      assert.equal(error.code, "build_failed");
      assert.ok(error.message.includes(c.names()), error.message);
      assert.match(error.message, /outside the plugin folder|not a module of the SDK/);
      assert.ok(!error.message.includes(SECRET));
      // Control: the same import kept inside the folder bundles.
      const bundle = await bundleEntry(`control-${c.name}`, c.control());
      assert.ok(!bundle.includes(SECRET));
    });
  }
});

test("a template-literal import (an esbuild glob, which skips onResolve) cannot pull in files outside", async () => {
  const error = await bundleEntry("refused-glob", "export const load = (n: string) => import(`../../${n}.ts`);\n").then(
    () => assert.fail("bundled"),
    (e: unknown) => e as Error,
  );
  assert.match(error.message, /secret\.ts: outside the plugin folder/);
  // Control: a glob over the plugin's own folder bundles, with the files it matches.
  const bundle = await bundleEntry("control-glob", "export const load = (n: string) => import(`./glob/${n}.ts`);\n");
  assert.match(bundle, /inside/);
  assert.ok(!bundle.includes(SECRET));
});

test("host interfaces stay imports of the component, not files", async () => {
  const bundle = await bundleEntry("host", 'import { write } from "clawhive:host/log@0.1.0";\nexport const out = write;\n');
  assert.match(bundle, /from "clawhive:host\/log@0\.1\.0"/);
});

describe("the entry point itself must be inside the folder", () => {
  test("a source path leading out is bad input", async () => {
    await assert.rejects(bundlePlugin(plugin, "../secret.ts"), (e: unknown) => e instanceof InvalidInputError && /source: \.\.\/secret\.ts is outside the plugin folder/.test(e.message));
    await assert.rejects(bundlePlugin(plugin, join(outside, "secret.ts")), InvalidInputError);
  });
  test("a source that is a symlink leading out is refused", async () => {
    await assert.rejects(bundlePlugin(plugin, "src/out-link.ts"), (e: unknown) => e instanceof PluginError && /outside the plugin folder/.test(e.message) && !e.message.includes(SECRET));
    // Control: a symlink within the folder is followed.
    assert.match(await bundlePlugin(plugin, "src/in-link.ts"), /inside/);
  });
});

describe("plugin.json and the WIT world are read only from inside the folder", () => {
  const manifest = (world = "w") => JSON.stringify({ name: "confined", version: "0.1.0", description: "d", publisher: "p", world, capabilities: [], tools: {} });

  test("a missing plugin.json says what a plugin folder holds", async () => {
    const dir = join(outside, "empty");
    await mkdir(dir, { recursive: true });
    await assert.rejects(buildComponent(dir, { cacheDir: join(outside, "cache") }), (e: unknown) => e instanceof InvalidInputError && /plugin\.json: not found; .*clawhive plugin new/.test(e.message));
    await assert.rejects(buildComponent(join(outside, "nope"), { cacheDir: join(outside, "cache") }), (e: unknown) => e instanceof InvalidInputError && /not a folder/.test(e.message));
  });

  test("plugin.json linking out is refused", async () => {
    const dir = join(outside, "manifest-link");
    await mkdir(join(dir, "src"), { recursive: true });
    await writeFile(join(outside, "elsewhere.json"), manifest());
    await symlink("../elsewhere.json", join(dir, "plugin.json"));
    await assert.rejects(buildComponent(dir, { cacheDir: join(outside, "cache") }), (e: unknown) => e instanceof InvalidInputError && /plugin\.json: links to .*outside the plugin folder/.test(e.message));
  });

  test("a wit file linking out is refused before anything is componentized", async () => {
    const dir = join(outside, "wit-link");
    await mkdir(join(dir, "src"), { recursive: true });
    await mkdir(join(dir, "wit"));
    await writeFile(join(dir, "plugin.json"), manifest());
    await writeFile(join(dir, "src", "index.ts"), "export const tools = {};\n");
    await writeFile(join(outside, "secret.wit"), `// ${SECRET}\n`);
    await symlink("../../secret.wit", join(dir, "wit", "world.wit"));
    await assert.rejects(
      buildComponent(dir, { cacheDir: join(outside, "cache") }),
      (e: unknown) => e instanceof InvalidInputError && /wit\/world\.wit: links to .*outside the plugin folder/.test(e.message) && !e.message.includes(SECRET),
    );
  });
});
