/**
 * A guest answering with hostile JSON: refused in the sandbox (a typed error, the instance
 * replaced and released), for a component and for an Extism plugin, beside controls that pass.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, test } from "node:test";
import type { HostCallHandler } from "../../host-proxies/types.js";
import { buildPlugin } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir } from "../../runtime/plugins/locations.js";
import { Sandbox, type SandboxPlugin } from "../../runtime/sandbox/index.js";
import { extismModulePackage } from "../helpers/extism-modules.js";
import { compileExtism } from "../helpers/extism-probe.js";
import { PROBE_PLUGIN, tempDir } from "../helpers/runtime.js";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const handler: HostCallHandler = async () => ({ ok: false, error: { tag: "io", val: "not served" } });

let sandbox: Sandbox;
let probe: SandboxPlugin;
let cacheDir: string;

/** An Extism module whose `call` answers with the text `text` (at most ~60 KB). */
async function answering(name: string, text: string): Promise<SandboxPlugin> {
  const envelope = JSON.stringify({ content: [{ type: "text", text }] });
  const pkg = await extismModulePackage(name, { data: [[4096, envelope]], body: `(call $out (i32.const 4096) (i32.const ${envelope.length})) (return (i32.const 0))` });
  try {
    return await sandbox.load(await compileExtism(pkg, cacheDir));
  } finally {
    await rm(pkg.dir, { recursive: true, force: true });
  }
}

before(async () => {
  cacheDir = await tempDir("clawhive-json-cache-");
  sandbox = new Sandbox({ workers: 1, callTimeoutMs: 20_000, memoryMaxMb: 64, poolSize: 0 });
  probe = await sandbox.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
});
after(async () => {
  await sandbox.close();
  await rm(cacheDir, { recursive: true, force: true });
});

const cases: Array<[string, number, string | undefined]> = [
  ["control: a result 100 deep passes", 100, undefined],
  ["a result 20,000 deep is refused", 20_000, "result_too_deep"],
];

for (const [name, depth, code] of cases) {
  test(`component: ${name}`, async () => {
    const before = sandbox.stats().instances;
    const instance = await sandbox.acquire(probe, { label: "deep", handler });
    // echo answers with its input text: the guest returns exactly this JSON.
    const call = instance.call("echo", nested(depth));
    if (code === undefined) {
      assert.equal(await call, nested(depth));
      assert.equal(instance.state, "bound");
      instance.destroy();
    } else {
      await assert.rejects(call, (e: unknown) => (e as { code?: string }).code === code && /nested more than 128 levels deep; .*instance was replaced/.test((e as Error).message));
      assert.equal(instance.state, "dead");
    }
    assert.equal(sandbox.stats().instances, before, "the instance is released");
  });

  test(`Extism: ${name}`, async () => {
    const plugin = await answering(`deep-${depth}`, nested(depth));
    const before = sandbox.stats().instances;
    const instance = await sandbox.acquire(plugin, { label: "deep", handler });
    const call = instance.call("run", "{}");
    if (code === undefined) {
      assert.equal(await call, nested(depth));
      instance.destroy();
    } else {
      await assert.rejects(call, { code });
      assert.equal(instance.state, "dead");
    }
    assert.equal(sandbox.stats().instances, before, "the instance is released");
  });
}

test("a result that is text, not JSON, passes whatever brackets it holds; control for the JSON check", async () => {
  const text = `notes ${nested(500)} end`;
  const plugin = await answering("brackets", text);
  const instance = await sandbox.acquire(plugin, { label: "text", handler });
  assert.equal(await instance.call("run", "{}"), text);
  instance.destroy();
});

test("after a refused result the same plugin serves a fresh instance", async () => {
  const deep = await sandbox.acquire(probe, { label: "again", handler });
  await assert.rejects(deep.call("echo", nested(20_000)), { code: "result_too_deep" });
  const fresh = await sandbox.acquire(probe, { label: "again", handler });
  assert.equal(await fresh.call("echo", '{"ok":true}'), '{"ok":true}');
  fresh.destroy();
});
