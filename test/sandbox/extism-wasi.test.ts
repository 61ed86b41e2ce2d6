/**
 * An Extism plugin built for WASI (wasip1): the C tool of docs/plugins.md, compiled here with
 * Debian's clang against the public Extism C PDK header. Its files (fopen), requests (Extism's
 * http_request), config (config_get) and stdout (printf) all go through clawhive.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it, test } from "node:test";
import { verifyPluginImports } from "../../runtime/plugins/imports.js";
import { Sandbox, type SandboxPlugin } from "../../runtime/sandbox/index.js";
import { buildCPlugin } from "../helpers/c-plugin.js";
import { compileExtism } from "../helpers/extism-probe.js";
import { listen } from "../host-proxies/http/_fixtures.js";
import { proxyBinding, type ProxyBinding } from "../helpers/proxy-binding.js";

let sandbox: Sandbox;
let plugin: SandboxPlugin;
let root: string;
let cacheDir: string;
const opened: ProxyBinding[] = [];

before(async () => {
  root = await mkdtemp(join(tmpdir(), "clawhive-c-wasi-"));
  cacheDir = await mkdtemp(join(tmpdir(), "clawhive-c-cache-"));
  await mkdir(join(root, "work"), { recursive: true });
  await mkdir(join(root, "ro"));
  await writeFile(join(root, "work", "note.txt"), "remember the milk");
  await writeFile(join(root, "outside.txt"), "not yours");
  await symlink(join(root, "outside.txt"), join(root, "work", "link.txt"));
  const artifact = await compileExtism(await buildCPlugin(), cacheDir);
  await verifyPluginImports(artifact);
  sandbox = new Sandbox({ workers: 1, callTimeoutMs: 10_000, memoryMaxMb: 64, poolSize: 0 });
  plugin = await sandbox.load(artifact);
});
after(async () => {
  await sandbox.close();
  for (const bound of opened) await bound.close();
  await rm(root, { recursive: true, force: true });
  await rm(cacheDir, { recursive: true, force: true });
});

async function call(tool: string, args: Record<string, unknown>, options: { httpPort?: number } = {}) {
  const bound = await proxyBinding(root, options);
  opened.push(bound);
  const instance = await sandbox.acquire(plugin, { label: "c", handler: bound.handler });
  try {
    return { result: await instance.call(tool, JSON.stringify(args)).catch((e: Error & { code?: string }) => `${e.code}: ${e.message}`), bound };
  } finally {
    instance.destroy();
  }
}

test("describe lists the C tools", async () => {
  assert.deepEqual((await sandbox.describe(plugin)).map((t) => t.name), ["read_note", "fetch", "greet"]);
});

describe("WASI files through the fs proxy", () => {
  const rows = [
    { name: "control: a note inside the mount", path: "/work/note.txt", expect: /remember the milk/, refusedByProxy: false },
    { name: "`..` out of the mount", path: "/work/../outside.txt", expect: /cannot open/, refusedByProxy: false },
    { name: "a path outside every mount", path: "/etc/passwd", expect: /cannot open/, refusedByProxy: false },
    { name: "a symlink out of the mount", path: "/work/link.txt", expect: /cannot open/, refusedByProxy: true },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { result, bound } = await call("read_note", { path: row.path });
      assert.match(result, row.expect);
      if (row.refusedByProxy) assert.ok(bound.calls.some((c) => !c.ok && c.error?.tag === "denied"), JSON.stringify(bound.calls));
      assert.ok(!/not yours|root:/.test(result));
    });
  }
});

describe("Extism http_request through the http proxy", () => {
  it("control: an allowed host is fetched", async (t) => {
    const server = await listen(t, (_req, res) => res.end("pong"));
    const { result } = await call("fetch", { url: `http://api.test:${server.port}/ping` }, { httpPort: server.port });
    assert.match(result, /200 pong/);
  });
  for (const url of ["http://169.254.169.254/latest/meta-data/", "http://metadata.test/", "http://undeclared.test/"]) {
    it(`refused: ${url}`, async () => {
      const { result, bound } = await call("fetch", { url });
      assert.match(result, /plugin_trapped: .*http_request to .* refused/);
      const fetches = bound.calls.filter((c) => c.call.iface === "http");
      assert.equal(fetches.length, 1);
      assert.equal(fetches[0]!.error?.tag, "denied");
    });
  }
});

test("config_get reads the plugin's grant and printf reaches the log", async () => {
  const { result, bound } = await call("greet", {});
  assert.match(result, /bonjour/);
  assert.deepEqual(bound.logs, ["greeting with bonjour"]);
});

test("a pooled instance, created before its run, sees the run's mounts once bound", async () => {
  // wasi-libc reads the preopens once, in its constructors: they must run bound, not when pooled.
  const pooled = new Sandbox({ workers: 1, callTimeoutMs: 10_000, memoryMaxMb: 64, poolSize: 1 });
  try {
    const loaded = await pooled.load(await compileExtism(await buildCPlugin(), cacheDir));
    await pooled.prewarm(loaded);
    const bound = await proxyBinding(root);
    opened.push(bound);
    const instance = await pooled.acquire(loaded, { label: "pooled", handler: bound.handler });
    assert.match(await instance.call("read_note", JSON.stringify({ path: "/work/note.txt" })), /remember the milk/);
    instance.destroy();
  } finally {
    await pooled.close();
  }
});
