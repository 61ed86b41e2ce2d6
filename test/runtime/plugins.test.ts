import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { test } from "node:test";
import { echoComponent, writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";
import { BIN } from "../cli/fixtures.js";

test("first-party plugins are installed through the install path, recorded with their blobs", async () => {
  const { runtime, dispose } = await testRuntime();
  try {
    const installed = await runtime.installer.registry.list();
    assert.deepEqual(installed.map((p) => [p.name, p.firstParty]), [["files", true], ["probe", true]]);
    for (const p of installed) assert.equal((await runtime.installer.registry.blob(p.blobSha256)).byteLength, p.size);
    assert.deepEqual(runtime.plugins().map((p) => p.name), ["files", "probe"]);
  } finally {
    await dispose();
  }
});

test("a plugin in use by an unfinished run cannot be removed; once the run ends it can", async () => {
  const { runtime, dispose } = await testRuntime();
  try {
    const agent = await defineTestAgent(runtime, "user", { plugins: ["probe"] });
    const run = await runtime.startRun({ agent });
    assert.equal((await run.callTool("probe.echo", { text: "hi" })).status, "ok");
    await assert.rejects(runtime.removePlugin("probe"), (e: Error & { code?: string }) => e.code === "plugin_in_use" && e.message.includes(run.id));
    assert.ok(runtime.tools().some((t) => t.plugin === "probe"));
    // The run keeps working: nothing was taken from under it.
    assert.equal((await run.callTool("probe.echo", { text: "still" })).status, "ok");
    await run.end();
    await runtime.removePlugin("probe");
    assert.ok(!runtime.tools().some((t) => t.plugin === "probe"));
    await assert.rejects(runtime.startRun({ agent }), /plugin probe is not installed/);
  } finally {
    await dispose();
  }
});

test("a plugin installed through one runtime runs on another process sharing the store", async () => {
  // One store per database per process (see Store): the second runtime is the real binary.
  const { runtime, dataDir, dispose } = await testRuntime();
  const work = await tempDir("clawhive-shared-");
  try {
    const echo = await echoComponent();
    const pkg = await writePackage(work, "echo", echo.manifest, echo.bytes);
    assert.equal((await runtime.installPlugin(pkg)).action, "installed");
    const clean = { ...process.env };
    for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_AGENTS_DIR"]) delete clean[name];
    const result = spawnSync(process.execPath, [BIN, "call", "bench-echo.echo", '{"text":"from b"}', "--mount", `/w=${work}`, "--data-dir", dataDir], { encoding: "utf8", timeout: 300_000, env: clean });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { text: "from b" });
  } finally {
    await dispose();
    await rm(work, { recursive: true, force: true });
  }
});
