/**
 * A public component no one here wrote, built unchanged from its sources (wassette's
 * get-weather-js, provenance in test/fixtures/wassette-get-weather-js): its real imports are
 * WASI 0.2 (config, http, cli, clocks, random, filesystem, io) and clawhive's own WASI serves
 * every one of them per instance. Its manifest must cover them: without http.fetch it is refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildPlugin } from "../../runtime/plugins/build.js";
import type { PluginArtifact } from "../../runtime/plugins/artifact.js";
import { verifyComponentImports } from "../../runtime/plugins/imports.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { Sandbox } from "../../runtime/sandbox/index.js";

const WEATHER = join(PROJECT_ROOT, "test", "fixtures", "wassette-get-weather-js");
let sandbox: Sandbox;
let artifact: PluginArtifact;

before(async () => {
  artifact = await buildPlugin(WEATHER, { cacheDir: defaultBuildCacheDir() });
  sandbox = new Sandbox({ workers: 1, poolSize: 0, callTimeoutMs: 10_000 });
});
after(() => sandbox.close());

test("control: its WASI imports are covered by its manifest and served: it instantiates and binds", async () => {
  const imports = await verifyComponentImports(artifact);
  assert.ok(imports.includes("wasi:config/store@0.2.0-draft") && imports.some((i) => i.startsWith("wasi:http/outgoing-handler@")), imports.join());
  assert.ok(imports.every((i) => i.startsWith("wasi:")));
  const instance = await sandbox.acquire(await sandbox.load(artifact), { label: "weather", handler: async () => ({ ok: false, error: { tag: "io", val: "unused" } }) });
  assert.equal(instance.state, "bound");
  instance.destroy();
});

test("the same component under a manifest without http.fetch is refused, naming wasi:http", async () => {
  const narrowed = { ...artifact, manifest: { ...artifact.manifest, capabilities: ["log", "fs.read"] } };
  await assert.rejects(verifyComponentImports(narrowed), (e: Error & { code?: string }) => e.code === "imports_not_declared" && /wasi:http\/outgoing-handler@0\.2\.\d+: needs one of http\.fetch/.test(e.message));
});
