/**
 * A public Extism plugin no one here wrote — the Extism C PDK's count-vowels example, compiled
 * unchanged for wasip1 with Debian's clang and wasi-libc (test/fixtures/extism-c-pdk, provenance
 * there) — installed and called as a tool. It exports one function per tool, as the PDKs build
 * plugins, not mcp.run's describe/call: its tools are plugin.json's, each an exported function.
 * It runs under the same policy as any plugin: a Guarded install waits for a person, input that
 * is not the tool's shape never reaches the guest, and a manifest that does not match the module
 * is refused at install — each beside a control that passes.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";

const SOURCE = join(PROJECT_ROOT, "test", "fixtures", "extism-c-pdk", "examples", "count-vowels");
let runtime: Runtime;
let dispose: () => Promise<void>;
let packages: string;
let bytes: Uint8Array;

/**
 * The example's own Makefile line (`clang -O2 -g -o count-vowels.wasm count-vowels.c
 * -mexec-model=reactor`), with Debian's wasi-libc as the sysroot instead of the WASI SDK's. The
 * source includes the PDK header as "../../extism-pdk.h", which is where the fixture keeps it.
 */
async function compile(): Promise<Uint8Array> {
  const out = join(packages, "count-vowels.wasm");
  await promisify(execFile)("clang", ["--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-g", "-o", out, "count-vowels.c", "-mexec-model=reactor"], { cwd: SOURCE });
  return new Uint8Array(await readFile(out));
}

/** A package folder of the compiled module under `manifest` (plugin.json's own by default). */
async function pkg(name: string, manifest: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(packages, `${name}-`));
  await writeFile(join(dir, "plugin.json"), JSON.stringify(manifest));
  await writeFile(join(dir, "plugin.wasm"), bytes);
  return dir;
}

before(async () => {
  packages = await mkdtemp(join(tmpdir(), "clawhive-extism-public-"));
  bytes = await compile();
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 20_000 } }));
  const manifest = JSON.parse(await readFile(join(SOURCE, "plugin.json"), "utf8")) as Record<string, unknown>;
  await runtime.installPlugin(await pkg("count-vowels", manifest));
  await runtime.installPlugin(await pkg("count-vowels-guarded", { ...manifest, name: "count-vowels-guarded", tools: { count_vowels: { risk: "guarded" } } }));
});
after(async () => {
  await dispose?.();
  await rm(packages, { recursive: true, force: true });
});

test("control: its exported function is a tool; called, it counts", async () => {
  const tool = (await runtime.installer.registry.get("count-vowels"))?.tools.find((t) => t.name === "count_vowels");
  assert.deepEqual(tool?.inputSchema, { type: "object", properties: { input: { type: "string", description: "the function's Extism input, passed as it is" } }, required: ["input"], additionalProperties: false });
  const agent = await defineTestAgent(runtime, "vowels", { plugins: ["count-vowels"] });
  const run = await runtime.startRun({ agent });
  try {
    const outcome = await run.callTool("count-vowels.count_vowels", { input: "this is a test of Extism" });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    const output = outcome.status === "ok" ? outcome.output : undefined;
    assert.deepEqual(typeof output === "string" ? JSON.parse(output) : output, { count: 7 });
    // Input that is not the tool's shape is refused on the host; the guest never sees it.
    const bad = await run.callTool("count-vowels.count_vowels", { text: "aeiou" });
    assert.equal(bad.status, "error", JSON.stringify(bad));
  } finally {
    await run.end();
  }
});

test("a Guarded install of the same function waits for a person before its guest runs", async () => {
  const agent = await defineTestAgent(runtime, "vowels-guarded", { plugins: ["count-vowels-guarded"] });
  const run = await runtime.startRun({ agent });
  try {
    const outcome = await run.callTool("count-vowels-guarded.count_vowels", { input: "aeiou" });
    assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
  } finally {
    await run.end().catch(() => undefined);
  }
});

test("a manifest naming a tool the module does not export is refused at install, naming it", async () => {
  const manifest = JSON.parse(await readFile(join(SOURCE, "plugin.json"), "utf8")) as Record<string, unknown>;
  const wrong = { ...manifest, name: "count-consonants", tools: { count_consonants: { risk: "safe" } } };
  await assert.rejects(runtime.installPlugin(await pkg("count-consonants", wrong)), /export count_consonants: missing \(tool count_consonants of plugin\.json is not a function the module exports/);
});
