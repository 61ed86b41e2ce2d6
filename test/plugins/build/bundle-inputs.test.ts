/**
 * A cached build is keyed on its bundle's recorded inputs (bundle-inputs.ts): any change that
 * could change the bundle must make the record stale, so the next build bundles again; only
 * an unchanged tree may skip the bundle step.
 */
import assert from "node:assert/strict";
import { appendFile, cp, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { sha256 } from "../../../runtime/plugins/artifact.js";
import { recordBundleInputs, recordedBundleSha } from "../../../runtime/plugins/bundle-inputs.js";
import { bundleWithInputs } from "../../../runtime/plugins/bundle.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { tempDir } from "../../helpers/runtime.js";

const ENTRY = "src/index.ts";

const CHANGES: Array<{ name: string; change: (dir: string) => Promise<void>; stale: boolean }> = [
  { name: "control: nothing changed", change: async () => {}, stale: false },
  { name: "control: a file the bundle does not read, in a folder it does not read", change: (dir) => writeFile(join(dir, "NOTES.md"), "x"), stale: false },
  { name: "an input's bytes changed", change: (dir) => appendFile(join(dir, ENTRY), "\n// changed\n"), stale: true },
  { name: "a file added beside an input (may change how an import resolves)", change: (dir) => writeFile(join(dir, "src", "index.js"), "export {};"), stale: true },
  {
    name: "an input removed",
    change: async (dir) => {
      const others = (await readdir(join(dir, "src"))).filter((n) => `src/${n}` !== ENTRY);
      if (others.length === 0) await rm(join(dir, ENTRY));
      else await rm(join(dir, "src", others[0]!));
    },
    stale: true,
  },
];

for (const c of CHANGES) {
  test(`bundle inputs: ${c.name} → ${c.stale ? "bundle again" : "the recorded bundle"}`, async () => {
    const dir = await tempDir("clawhive-plugin-");
    const cache = await tempDir("clawhive-cache-");
    try {
      await cp(join(PROJECT_ROOT, "bench", "plugins", "echo"), dir, { recursive: true });
      const { text, inputs } = await bundleWithInputs(dir, ENTRY);
      assert.ok(inputs.some((path) => path.endsWith(ENTRY)), "the entry is an input");
      assert.ok(inputs.every((path) => !path.includes("<")), "only files are inputs");
      assert.equal(await recordedBundleSha(cache, dir, ENTRY), undefined, "no record before the first bundle");
      await recordBundleInputs(cache, dir, ENTRY, text, inputs);
      await c.change(dir);
      assert.equal(await recordedBundleSha(cache, dir, ENTRY), c.stale ? undefined : sha256(text));
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(cache, { recursive: true, force: true });
    }
  });
}
