/**
 * `clawhive plugin install some.wasm` with no manifest: a typed component gets one proposed from
 * its imports and exports; without a terminal it installs only with --yes (else exit 3, saying
 * how), and the accepted manifest is written beside it. A component with a manifest is the control.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir } from "../helpers/runtime.js";
import { typedDummy, worldOf } from "../helpers/typed-components.js";

let dir: string;
before(async () => {
  dir = await tempDir("clawhive-propose-");
});
after(() => rm(dir, { recursive: true, force: true }));

function clawhive(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_STORE_AUTH_TOKEN"]) delete env[name];
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, "bin", "clawhive.js"), ...args], { encoding: "utf8", env, timeout: 300_000, stdio: ["ignore", "pipe", "pipe"] });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("no manifest, no terminal, no --yes: the proposal is shown, nothing installed, exit 3", async () => {
  const { bytes } = await typedDummy(worldOf("  export add: func(a: u32, b: u32) -> u32;"));
  const wasm = join(dir, "adder.wasm");
  await writeFile(wasm, bytes);
  const result = clawhive("plugin", "install", wasm, "--data-dir", join(dir, "data-a"));
  assert.equal(result.code, 3, result.stderr);
  assert.match(result.stderr, /came without a plugin\.json; proposed from its imports and exports/);
  assert.match(result.stderr, /tool add \(safe\): add\(a: u32, b: u32\) -> u32/);
  assert.match(result.stderr, /not installed: re-run with --yes to accept this manifest/);
  await assert.rejects(stat(join(dir, "plugin.json")), { code: "ENOENT" });
  const info = clawhive("plugin", "info", "adder", "--data-dir", join(dir, "data-a"));
  assert.notEqual(info.code, 0);
});

test("--yes accepts the proposal: it is written beside the component and installed", async () => {
  const sub = join(dir, "yes");
  await import("node:fs/promises").then((fs) => fs.mkdir(sub));
  const { bytes } = await typedDummy(worldOf("  export add: func(a: u32, b: u32) -> u32;"));
  const wasm = join(sub, "adder.wasm");
  await writeFile(wasm, bytes);
  const result = clawhive("plugin", "install", wasm, "--yes", "--json", "--data-dir", join(dir, "data-b"));
  assert.equal(result.code, 0, result.stderr);
  const written = JSON.parse(await readFile(join(sub, "plugin.json"), "utf8")) as { name: string; contract: string; tools: Record<string, unknown> };
  assert.equal(written.name, "adder");
  assert.equal(written.contract, "typed");
  assert.deepEqual(Object.keys(written.tools), ["add"]);
  const info = clawhive("plugin", "info", "adder", "--json", "--data-dir", join(dir, "data-b"));
  assert.equal(info.code, 0, info.stderr);
  assert.deepEqual((JSON.parse(info.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name), ["add"]);
});

test("a component that cannot be a typed plugin gets no proposal, and a clear error", async () => {
  const sub = join(dir, "blobs");
  await import("node:fs/promises").then((fs) => fs.mkdir(sub));
  const { bytes } = await typedDummy(`package test:typed;\ninterface store { resource blob; open: func() -> blob; }\nworld root {\n  export store;\n}\n`);
  const wasm = join(sub, "blobs.wasm");
  await writeFile(wasm, bytes);
  const result = clawhive("plugin", "install", wasm, "--yes", "--data-dir", join(dir, "data-c"));
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /function test:typed\/store\.open: its result has type own<blob>/);
  await assert.rejects(stat(join(sub, "plugin.json")), { code: "ENOENT" });
});

test("the API proposes a manifest for an uploaded component, installs nothing, and refuses what cannot be a tool", async () => {
  const { apiFixture, call } = await import("../api/routes-fixtures.js");
  const f = await apiFixture();
  try {
    const good = await typedDummy(worldOf("  export add: func(a: u32, b: u32) -> u32;"));
    const answer = await call(f, "POST", "/v1/plugins/proposals", { body: Buffer.from(good.bytes), type: "application/wasm" });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.manifest.contract, "typed");
    assert.deepEqual(Object.keys(answer.body.manifest.tools), ["add"]);
    assert.deepEqual((await f.runtime.installer.registry.list()).map((p) => p.name).sort(), ["files", "probe"]);
    const blobs = await typedDummy(`package test:typed;\ninterface store { resource blob; open: func() -> blob; }\nworld root {\n  export store;\n}\n`);
    const refused = await call(f, "POST", "/v1/plugins/proposals", { body: Buffer.from(blobs.bytes), type: "application/wasm" });
    assert.equal(refused.status, 422);
    assert.match(refused.body.error.message, /function test:typed\/store\.open: its result has type own<blob>/);
    const notWasm = await call(f, "POST", "/v1/plugins/proposals", { body: Buffer.from("hello"), type: "application/wasm" });
    assert.equal(notWasm.status, 400);
    const client = await call(f, "POST", "/v1/plugins/proposals", { body: Buffer.from(good.bytes), type: "application/wasm", token: f.token.client });
    assert.equal(client.status, 403);
  } finally {
    await f.close();
  }
});

test("the API proposes for an Extism module too (its describe read in the runtime's sandbox), and refuses what install would", async () => {
  const { apiFixture, call } = await import("../api/routes-fixtures.js");
  const { watToWasm } = await import("../helpers/extism-probe.js");
  const { hyperMcpV2Wat } = await import("../helpers/extism-pdk-modules.js");
  const f = await apiFixture();
  try {
    const v2 = await call(f, "POST", "/v1/plugins/proposals", { body: Buffer.from(await watToWasm(hyperMcpV2Wat())), type: "application/wasm" });
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    assert.equal(v2.body.manifest.format, "extism");
    assert.deepEqual(Object.keys(v2.body.manifest.tools), ["get_time", "echo_request"]);
    const half = await call(f, "POST", "/v1/plugins/proposals", { body: Buffer.from(await watToWasm(hyperMcpV2Wat({ exports: { callTool: false } }))), type: "application/wasm" });
    assert.equal(half.status, 422);
    assert.equal(half.body.error.code, "manifest_unproposable");
    assert.match(half.body.error.message, /export call_tool: missing/);
  } finally {
    await f.close();
  }
});
