/**
 * `prepare` compiles a package's build ahead of its install (a first start compiles its own
 * plugins a few at once, then installs them one at a time): the install finds it sealed in the
 * cache and does not transpile again; an install that was not prepared transpiles (the control).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../../../runtime/plugins/install/index.js";
import { CodeSeal } from "../../../runtime/plugins/seal.js";
import { Sandbox } from "../../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock } from "../../../runtime/store/index.js";
import { echoComponent, writePackage } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";

for (const prepared of [true, false]) {
  test(prepared ? "a prepared package installs without transpiling again" : "control: an install not prepared transpiles", async () => {
    const root = await tempDir("clawhive-prepare-");
    const store = await openStore({ url: `file:${join(root, "s.db")}` });
    const sandbox = new Sandbox({ workers: 1, poolSize: 0 });
    try {
      await applyMigrations(store, pluginMigrations, { clock: systemClock });
      const lines: string[] = [];
      const installer = new PluginInstaller({
        registry: new PluginRegistry(store, { clock: systemClock }),
        sandbox,
        cacheDir: join(root, "cache"),
        seal: CodeSeal.fromKey(randomBytes(32), "00112233aabbccdd"),
        onProgress: (line) => lines.push(line),
      });
      const echo = await echoComponent();
      const pkg = await installer.readPackage(await writePackage(root, "echo", echo.manifest, echo.bytes));
      if (prepared) await installer.prepare(pkg);
      const before = lines.filter((l) => l.includes("transpiling")).length;
      assert.equal(before, prepared ? 1 : 0);
      const result = await installer.installPackage(pkg, { by: "cli:test" });
      assert.equal(result.action, "installed");
      assert.deepEqual(result.plugin.tools.map((t) => t.name).sort(), ["echo", "hostloop", "kvloop"]);
      assert.equal(lines.filter((l) => l.includes("transpiling")).length, 1, lines.join("\n"));
    } finally {
      await sandbox.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });
}
