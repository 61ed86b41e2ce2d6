/**
 * Why a typed tool's descriptions are its signatures (docs/plugins.md, "Typed WIT exports"): the
 * WIT's doc comments do not reach a built component. Checked on the fully doc-commented
 * test/plugins/typed-kinds, as componentize-js builds it and as jco's componentEmbed +
 * componentNew make it from the same WIT; should a toolchain start carrying a `package-docs`
 * section into components, this fails and the schema reader can take descriptions from it.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { componentEmbed, componentNew, componentWit } from "@bytecodealliance/jco";
import { buildComponent } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { readTypedTools } from "../../runtime/plugins/typed/index.js";

const KINDS = join(PROJECT_ROOT, "test", "plugins", "typed-kinds");
const DOC = "Moves a point.";

async function witSource(): Promise<string> {
  const dir = join(KINDS, "wit");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".wit")).sort();
  return (await Promise.all(files.map((f) => readFile(join(dir, f), "utf8")))).join("\n");
}

test("the WIT has the doc comment; no built component carries it", async () => {
  const wit = await witSource();
  assert.ok(wit.includes(`/// ${DOC}`), "the fixture's WIT documents move-point");
  const built = await buildComponent(KINDS, { cacheDir: defaultBuildCacheDir() });
  const embedded = await componentEmbed({ dummy: true, witSource: wit, world: "typed-kinds" });
  const made = await componentNew(embedded);
  for (const [label, bytes] of [["componentize-js", built.bytes], ["jco componentNew", made]] as const) {
    const text = Buffer.from(bytes);
    assert.ok(!text.includes("package-docs"), `${label}: a package-docs section`);
    assert.ok(!text.includes(DOC), `${label}: the doc text`);
  }
  assert.ok(!(await componentWit(made)).includes(DOC));
});

test("so the description of a typed tool is its signature", async () => {
  const built = await buildComponent(KINDS, { cacheDir: defaultBuildCacheDir() });
  const move = readTypedTools(built.bytes, "typed-kinds").tools.find((t) => t.name === "shapes_move_point");
  assert.match(String(move?.description), /move-point/);
  assert.ok(!String(move?.description).includes(DOC));
});
