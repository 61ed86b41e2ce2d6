/**
 * `clawhive plugin install some.wasm --yes` with no plugin.json, for each kind of binary: the
 * proposal is derived from what the code can call, written beside the binary and installed as
 * written (the round trip). A binary install would refuse gets no proposal: a clear message,
 * exit 2, no plugin.json, nothing installed. Through the shipped CLI.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildPlugin } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { cliPlace, clawhiveIn, type CliPlace } from "../cli/fixtures.js";
import { hyperMcpV2Wat, pdkLogWat } from "../helpers/extism-pdk-modules.js";
import { buildExtismProbe, watToWasm } from "../helpers/extism-probe.js";
import { socketsComponent, stdComponent, wasiWorld, watComponent } from "../helpers/wasi-components.js";

let place: CliPlace;

const STD_AGENT = `name: std
description: Calls a component installed from its proposed manifest.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: std-reader, version: "*" }
grants:
  log: {}
`;
let n = 0;

before(async () => {
  place = await cliPlace("clawhive-propose-kinds-");
});
after(() => rm(place.root, { recursive: true, force: true }));

interface Manifest {
  name: string;
  format?: string;
  contract?: string;
  capabilities: string[];
  tools: Record<string, { risk: string; capabilities?: string[] }>;
}

/** `bytes` as `<fresh dir>/<file>`; answers the file and where its plugin.json would be written. */
async function bare(file: string, bytes: Uint8Array): Promise<{ wasm: string; manifest: string }> {
  const dir = join(place.root, `bin-${++n}`);
  await mkdir(dir);
  await writeFile(join(dir, file), bytes);
  return { wasm: join(dir, file), manifest: join(dir, "plugin.json") };
}

/** Installs `bytes` with the proposal accepted; answers the manifest written and the plugin installed. */
async function roundTrip(file: string, bytes: Uint8Array): Promise<{ written: Manifest; info: { tools: Array<{ name: string; risk: string }>; capabilities: string[] } }> {
  const { wasm, manifest } = await bare(file, bytes);
  const result = clawhiveIn(place, "plugin", "install", wasm, "--yes");
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stderr, /came without a plugin\.json; proposed from its imports and exports/);
  const written = JSON.parse(await readFile(manifest, "utf8")) as Manifest;
  const info = clawhiveIn(place, "plugin", "info", written.name, "--json");
  assert.equal(info.code, 0, info.stderr);
  return { written, info: JSON.parse(info.stdout) as { tools: Array<{ name: string; risk: string }>; capabilities: string[] } };
}

/** A refused proposal: exit 2, the message, no plugin.json, nothing installed under `name`. */
async function refused(file: string, bytes: Uint8Array, message: RegExp): Promise<void> {
  const { wasm, manifest } = await bare(file, bytes);
  const result = clawhiveIn(place, "plugin", "install", wasm, "--yes");
  assert.equal(result.code, 2, result.stdout + result.stderr);
  assert.match(result.stderr, /no manifest is proposed, because install would refuse the plugin/);
  assert.match(result.stderr, message);
  assert.match(result.stderr, /nothing was written/);
  await assert.rejects(stat(manifest), { code: "ENOENT" });
  assert.notEqual(clawhiveIn(place, "plugin", "info", file.replace(/\.wasm$/, "")).code, 0);
}

test("a typed component proposes only what its lowered functions need: reads, stdout; no http, no sockets", async () => {
  const { written, info } = await roundTrip("std-reader.wasm", (await stdComponent()).bytes);
  assert.equal(written.contract, "typed");
  assert.deepEqual(written.capabilities, ["fs.read", "log"]);
  assert.deepEqual(written.tools, { hello: { risk: "safe", capabilities: ["fs.read", "log"] } });
  assert.deepEqual(info.capabilities, ["fs.read", "log"]);
  // Installed as proposed, it runs: its http types and its socket need no grant.
  await writeFile(join(place.agents, "std.yaml"), STD_AGENT);
  const called = clawhiveIn(place, "call", "std-reader.hello", "{}", "--agent", "std", "--agents", place.agents, "--json");
  assert.equal(called.code, 0, called.stdout + called.stderr);
  assert.equal((JSON.parse(called.stdout) as { output: unknown }).output, "hello from a std-built component");
});

test("the same component that also writes through a descriptor is proposed fs.write, and its tool is Guarded", async () => {
  const { written, info } = await roundTrip("std-writer.wasm", (await stdComponent({ writes: true })).bytes);
  assert.deepEqual(written.capabilities, ["fs.read", "fs.write", "log"]);
  assert.deepEqual(info.tools.map((t) => [t.name, t.risk]), [["hello", "guarded"]]);
});

test("a component importing only wasi:sockets is proposed no capability at all", async () => {
  const { written } = await roundTrip("net-user.wasm", (await socketsComponent()).bytes);
  assert.deepEqual(written.capabilities, []);
  assert.deepEqual(Object.keys(written.tools).sort(), ["connect", "hello"]);
});

test("a describe/call component's tools come from its describe, read in a sandbox", async () => {
  const probe = await buildPlugin(join(PROJECT_ROOT, "test", "plugins", "probe"), { cacheDir: defaultBuildCacheDir() });
  const { written, info } = await roundTrip("probe-copy.wasm", new Uint8Array(await readFile(join(probe.dir, "plugin.wasm"))));
  assert.equal(written.contract, undefined);
  assert.deepEqual(written.capabilities, ["fs.read", "fs.write", "kv", "log"]);
  assert.ok(Object.keys(written.tools).includes("echo") && Object.keys(written.tools).includes("write"), JSON.stringify(written.tools));
  // A tool that writes is Guarded by default; one that only echoes is Safe.
  assert.equal(info.tools.find((t) => t.name === "write")?.risk, "guarded");
  assert.equal(info.tools.find((t) => t.name === "echo")?.risk, "safe");
});

test("an Extism module of exported functions (the PDKs' shape) proposes its functions and log for log_*", async () => {
  const { written } = await roundTrip("pdk-logger.wasm", await watToWasm(pdkLogWat()));
  assert.equal(written.format, "extism");
  assert.deepEqual(written.capabilities, ["log"]);
  assert.deepEqual(Object.keys(written.tools).sort(), ["level", "macro", "raw"]);
});

test("an Extism servlet (describe/call) proposes what describe lists", async () => {
  const pkg = await buildExtismProbe();
  try {
    const { written, info } = await roundTrip("servlet-copy.wasm", pkg.bytes);
    assert.deepEqual(written.capabilities, ["fs.read", "fs.write", "log"]);
    // Every tool the probe's plugin.json declares, each one its describe lists.
    const declared = JSON.parse(await readFile(join(PROJECT_ROOT, "test", "plugins", "extism-probe", "plugin.json"), "utf8")) as { tools: Record<string, unknown> };
    assert.deepEqual(info.tools.map((t) => t.name).sort(), Object.keys(declared.tools).sort());
    assert.equal(info.tools.find((t) => t.name === "write")?.risk, "guarded");
  } finally {
    await rm(pkg.dir, { recursive: true, force: true });
  }
});

test("a hyper-mcp v2 plugin proposes what list_tools lists", async () => {
  const { written } = await roundTrip("v2-copy.wasm", await watToWasm(hyperMcpV2Wat()));
  assert.deepEqual(written.capabilities, []);
  assert.deepEqual(written.tools, { get_time: { risk: "safe" }, echo_request: { risk: "safe" } });
});

test("a component importing what clawhive does not serve gets no proposal, naming the import", async () => {
  const wat = `(module
  (import "wasi:keyvalue/store@0.2.0-draft" "open" (func $open (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "run") (result i32) (call $open (i32.const 0) (i32.const 0))))`;
  const keyvalue = `package wasi:keyvalue@0.2.0-draft {\n  interface store {\n    resource bucket;\n    open: func(identifier: string) -> bucket;\n  }\n}\n`;
  const component = await watComponent(wat, `${await wasiWorld("  import wasi:keyvalue/store@0.2.0-draft;\n  export run: func() -> u32;", [])}\n${keyvalue}`);
  await refused("kv-user.wasm", component.bytes, /wasi:keyvalue\/store@0\.2\.0-draft: outside the plugin contract/);
});

test("an Extism module importing another module, lacking half of an ABI or whose describe traps gets no proposal", async () => {
  const foreign = `(module
  (import "env" "getenv" (func $getenv (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "run") (result i32) (i32.const 0)))`;
  await refused("env-user.wasm", await watToWasm(foreign), /env\.getenv: outside the plugin contract/);
  await refused("half-v2.wasm", await watToWasm(hyperMcpV2Wat({ exports: { callTool: false } })), /export call_tool: missing/);
  // A servlet is refused on its imports before its describe is ever run.
  const servlet = `(module
  (import "env" "getenv" (func $getenv (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "describe") (result i32) (unreachable))
  (func (export "call") (result i32) (unreachable)))`;
  await refused("env-servlet.wasm", await watToWasm(servlet), /env\.getenv: outside the plugin contract/);
  // With nothing wrong in its imports, a servlet whose describe traps is refused as install would refuse it.
  const trapping = servlet.replace(/\n  \(import "env"[^\n]*/, "");
  await refused("trap-servlet.wasm", await watToWasm(trapping), /describe: .*(unreachable|trap)/i);
});
