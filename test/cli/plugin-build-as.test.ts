/**
 * `clawhive plugin build` of an AssemblyScript plugin through the real binary: a package of a few
 * KiB written (from the build cache, as an unchanged plugin is), and a plugin that does not compile
 * refused with the compiler's diagnostic and exit code 1.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { sha256 } from "../../runtime/plugins/artifact.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir } from "../helpers/runtime.js";
import { BIN } from "./fixtures.js";

function clawhive(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 300_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("plugin build: an AssemblyScript plugin becomes a package of a few KiB; one that does not compile exits 1 naming the error", async () => {
  const dir = await tempDir("clawhive-as-cli-");
  try {
    const plugin = join(dir, "echo");
    await cp(join(PROJECT_ROOT, "bench", "plugins", "as-echo"), plugin, { recursive: true });
    const built = clawhive(["plugin", "build", plugin, "--out", join(dir, "out")]);
    assert.equal(built.code, 0, built.stderr);
    assert.match(built.stderr, /bench-as-echo: wrote .* \(plugin\.wasm \d+\.\d KiB, sha256 [0-9a-f]{64}\)/);
    const wasm = await readFile(join(dir, "out", "plugin.wasm"));
    assert.ok((await stat(join(dir, "out", "plugin.wasm"))).size < 128 * 1024);
    assert.equal((JSON.parse(await readFile(join(dir, "out", "plugin.json"), "utf8")) as { sha256: string }).sha256, sha256(wasm));

    const entry = join(plugin, "assembly", "index.ts");
    await writeFile(entry, (await readFile(entry, "utf8")).replace("return Outcome.ok(", "return Outcome.okay("));
    const broken = clawhive(["plugin", "build", plugin, "--out", join(dir, "broken")]);
    assert.equal(broken.code, 1, broken.stderr);
    assert.match(broken.stderr, /clawhive: assemblyscript failed/);
    assert.match(broken.stderr, /okay/);
    assert.match(broken.stderr, /assembly\/index\.ts/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
