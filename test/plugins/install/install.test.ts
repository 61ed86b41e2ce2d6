import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ClawhiveError } from "../../../runtime/errors.js";
import { PluginInstaller, pluginMigrations, PluginRegistry, UpgradeNeedsAcceptance } from "../../../runtime/plugins/install/index.js";
import { defaultBuildCacheDir } from "../../../runtime/plugins/locations.js";
import { RunRecords, runMigrations } from "../../../runtime/runs/records.js";
import { Sandbox } from "../../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../../../runtime/store/index.js";
import { dummyComponent, echoComponent, packTgz, writePackage } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";

let root: string;
let sandbox: Sandbox;
let echo: Awaited<ReturnType<typeof echoComponent>>;

before(async () => {
  root = await tempDir("clawhive-install-");
  sandbox = new Sandbox({ workers: 1, poolSize: 0 });
  echo = await echoComponent();
});

after(async () => {
  await sandbox.close();
  await rm(root, { recursive: true, force: true });
});

/** A fresh store with an installer on it (the shared compile cache unless `cacheDir` is given). */
async function place(options: { cacheDir?: string } = {}): Promise<{ store: Store; installer: PluginInstaller; registry: PluginRegistry; close: () => Promise<void> }> {
  const dir = await tempDir("clawhive-store-");
  const store = await openStore({ url: `file:${join(dir, "s.db")}` });
  await applyMigrations(store, runMigrations, { clock: systemClock });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  const registry = new PluginRegistry(store, { clock: systemClock });
  const records = new RunRecords(store);
  const installer = new PluginInstaller({ registry, sandbox, cacheDir: options.cacheDir ?? defaultBuildCacheDir(), runsUsing: (n) => records.unfinishedUsing(n) });
  return { store, installer, registry, close: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
}

function echoManifest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...echo.manifest, ...overrides };
}

test("a package folder, a .tgz and a .wasm with its manifest all install the same verified plugin", async () => {
  const folder = await writePackage(root, "pkg-forms", echoManifest({ sha256: echo.sha256 }), echo.bytes);
  const tgz = await packTgz(folder, join(root, "echo.tgz"));
  const npmStyle = await packTgz(folder, join(root, "echo-npm.tgz"), { prefix: "package" });
  const wasm = join(folder, "plugin.wasm");
  for (const [source, options] of [[folder, {}], [tgz, { sha256: undefined }], [npmStyle, {}], [wasm, { manifestFile: join(folder, "plugin.json") }]] as const) {
    const { installer, registry, close } = await place();
    try {
      const result = await installer.install(source, options);
      assert.equal(result.action, "installed", source);
      const installed = await registry.get("bench-echo");
      assert.equal(installed?.blobSha256, echo.sha256);
      assert.equal(installed?.size, echo.bytes.byteLength);
      assert.deepEqual(installed?.tools.map((t) => t.name), ["echo", "hostloop", "kvloop"]);
      assert.deepEqual(installed?.tools.find((t) => t.name === "hostloop")?.capabilities, ["fs.read"]);
      // The blob is in the store, content-addressed: a node with no cache reads it back.
      assert.deepEqual(await registry.blob(echo.sha256), echo.bytes);
      // The same bytes again: nothing to do, nothing replaced.
      assert.equal((await installer.install(source, options)).action, "unchanged");
    } finally {
      await close();
    }
  }
});

test("an https URL installs only with its sha256, checked before anything is used", async () => {
  const folder = await writePackage(root, "pkg-url", echoManifest(), echo.bytes);
  const tgz = await readFile(await packTgz(folder, join(root, "url.tgz")));
  const tls = selfSignedCert(root);
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    if (req.url === "/redirect-http") {
      res.writeHead(302, { location: "http://127.0.0.1:1/echo.tgz" }).end();
      return;
    }
    res.writeHead(req.url === "/echo.tgz" ? 200 : 404).end(req.url === "/echo.tgz" ? tgz : "");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `https://localhost:${(server.address() as AddressInfo).port}`;
  const { installer, registry, close } = await place();
  try {
    const download = { ca: tls.cert };
    const hash = (await import("node:crypto")).createHash("sha256").update(tgz).digest("hex");
    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      [`${url}/echo.tgz`, {}, /only with its sha256/],
      [`${url}/echo.tgz`, { sha256: "0".repeat(64) }, /sha256 mismatch/],
      [`${url}/echo.tgz`, { sha256: "xyz" }, /expected 64 hex digits/],
      [`http://127.0.0.1:1/echo.tgz`, { sha256: hash }, /only https URLs/],
      [`${url}/redirect-http`, { sha256: hash }, /non-https/],
      [`${url}/missing.tgz`, { sha256: hash }, /HTTP 404/],
    ];
    for (const [source, options, message] of refusals) {
      await assert.rejects(installer.install(source, { ...options, download }), message, source);
      assert.equal(await registry.get("bench-echo"), undefined);
    }
    // Control: the right hash installs.
    const result = await installer.install(`${url}/echo.tgz`, { sha256: hash.toUpperCase(), download });
    assert.equal(result.action, "installed");
    assert.equal(result.plugin.origin, `${url}/echo.tgz`);
  } finally {
    server.close();
    await close();
  }
});

test("a wasm that is not the one its manifest or the caller names is refused, and nothing is recorded", async () => {
  const { installer, registry, close } = await place();
  try {
    const wrong = await writePackage(root, "pkg-wrong-hash", echoManifest({ sha256: "a".repeat(64) }), echo.bytes);
    await assert.rejects(installer.install(wrong), { code: "blob_tampered" });
    const right = await writePackage(root, "pkg-right-hash", echoManifest({ sha256: echo.sha256 }), echo.bytes);
    await assert.rejects(installer.install(right, { sha256: "b".repeat(64) }), { code: "blob_tampered" });
    const flipped = new Uint8Array(echo.bytes);
    flipped[flipped.length - 1] = flipped[flipped.length - 1]! ^ 1;
    const tampered = await writePackage(root, "pkg-tampered", echoManifest({ sha256: echo.sha256 }), flipped);
    await assert.rejects(installer.install(tampered), { code: "blob_tampered" });
    assert.deepEqual(await registry.list(), []);
    // Control: the untouched package installs.
    assert.equal((await installer.install(right, { sha256: echo.sha256 })).action, "installed");
  } finally {
    await close();
  }
});

test("a tampered blob in the store is refused at load by a node that must compile it", async () => {
  const { store, installer, registry, close } = await place();
  const freshCache = await tempDir("clawhive-cache-");
  try {
    await installer.install(await writePackage(root, "pkg-store", echoManifest(), echo.bytes));
    const installed = (await registry.get("bench-echo"))!;
    // Control: a node with an empty cache compiles the stored blob and loads it.
    const other = new PluginInstaller({ registry, sandbox, cacheDir: freshCache });
    assert.equal((await other.load(installed)).plugin.manifest.name, "bench-echo");
    await rm(freshCache, { recursive: true, force: true });
    await store.execute({ sql: "UPDATE plugin_blob_chunks SET bytes = zeroblob(length(bytes)) WHERE sha256 = ? AND seq = 3", args: [installed.blobSha256] });
    await assert.rejects(other.load(installed), { code: "blob_tampered" });
  } finally {
    await close();
    await rm(freshCache, { recursive: true, force: true });
  }
});

test("a load that finds its sealed build does not read the store's blob; a load that must build needs it", async () => {
  const { store, installer, registry, close } = await place();
  const cache = await tempDir("clawhive-cache-");
  try {
    await installer.install(await writePackage(root, "pkg-sealed", echoManifest(), echo.bytes));
    const installed = (await registry.get("bench-echo"))!;
    const node = new PluginInstaller({ registry, sandbox, cacheDir: cache });
    // Nothing cached: built from the blob, the build sealed.
    assert.equal((await node.load(installed)).plugin.manifest.name, "bench-echo");
    await store.execute({ sql: "DELETE FROM plugin_blob_chunks WHERE sha256 = ?", args: [installed.blobSha256] });
    // The sealed build is what runs: the blob, gone now, is not read.
    assert.equal((await node.load(installed)).plugin.manifest.name, "bench-echo");
    await rm(cache, { recursive: true, force: true });
    await assert.rejects(node.load(installed), { code: "blob_missing" });
  } finally {
    await close();
    await rm(cache, { recursive: true, force: true });
  }
});

test("tampered cached glue is refused, then rebuilt from the blob, at load and at install", async () => {
  const cache = await tempDir("clawhive-cache-");
  const first = await place({ cacheDir: cache });
  const second = await place({ cacheDir: cache });
  try {
    const pkg = await writePackage(root, "pkg-glue", echoManifest(), echo.bytes);
    await first.installer.install(pkg);
    const installed = (await first.registry.get("bench-echo"))!;
    const [compiled] = await readdir(join(cache, "compiled"));
    const glue = join(cache, "compiled", compiled!, "plugin.js");
    const original = await readFile(glue, "utf8");
    const tamper = () => writeFile(glue, original.replace("return;", "globalThis.stolen = 1; return;"));
    await tamper();
    // A sandbox that has not compiled this plugin yet must read the files again.
    const fresh = new Sandbox({ workers: 1, poolSize: 0 });
    try {
      assert.equal((await first.installer.load(installed, fresh)).plugin.glue, original);
      await tamper();
      // Another node's install (its own sandbox, so the files are read again).
      const otherSandbox = new Sandbox({ workers: 1, poolSize: 0 });
      try {
        const installer = new PluginInstaller({ registry: second.registry, sandbox: otherSandbox, cacheDir: cache });
        assert.equal((await installer.install(pkg)).action, "installed");
        assert.equal(await readFile(glue, "utf8"), original);
      } finally {
        await otherSandbox.close();
      }
    } finally {
      await fresh.close();
    }
  } finally {
    await first.close();
    await second.close();
    await rm(cache, { recursive: true, force: true });
  }
});

test("imports the manifest does not declare, and WASI, are refused at install naming the import", async () => {
  const { installer, registry, close } = await place();
  try {
    const under = await writePackage(root, "pkg-under", echoManifest({ capabilities: [] }), echo.bytes);
    await assert.rejects(installer.install(under), (e: ClawhiveError) => e.code === "imports_not_declared" && /clawhive:host\/fs@0\.1\.1: needs one of fs\.read, fs\.write/.test(e.message));
    const wasi = await dummyComponent(["wasi:keyvalue/store@0.2.0", "clawhive:host/log@0.1.1"], "package wasi:keyvalue@0.2.0 {\ninterface store { open: func(name: string) -> u32; }\n}");
    const withWasi = await writePackage(root, "pkg-wasi", { name: "wasi-kv", version: "1.0.0", description: "opens a store", publisher: "someone", capabilities: ["log", "kv"], tools: {} }, wasi.bytes);
    await assert.rejects(installer.install(withWasi), (e: ClawhiveError) => e.code === "imports_not_declared" && /wasi:keyvalue\/store@0\.2\.0: outside the plugin contract/.test(e.message));
    const future = await dummyComponent(["clawhive:host/log@0.1.1"], "package clawhive:host@0.9.0 {\ninterface log { write: func(s: string); }\n}");
    // Control for the dummy: with only a declared host import it passes the import check and
    // reaches describe, where the dummy's code traps (it has none).
    const dummy = await writePackage(root, "pkg-dummy", { name: "dummy", version: "1.0.0", description: "d", publisher: "someone", capabilities: ["log"], tools: {} }, future.bytes);
    await assert.rejects(installer.install(dummy), (e: ClawhiveError) => e.code !== "imports_not_declared");
    assert.deepEqual(await registry.list(), []);
    // Control: the declared component installs.
    assert.equal((await installer.install(await writePackage(root, "pkg-declared", echoManifest(), echo.bytes))).action, "installed");
  } finally {
    await close();
  }
});

test("a name is never silently replaced, whatever its case", async () => {
  const { installer, registry, close } = await place();
  try {
    await installer.install(await writePackage(root, "pkg-a", echoManifest(), echo.bytes));
    const impostor = await writePackage(root, "pkg-b", echoManifest({ publisher: "someone else", description: "looks the same" }), echo.bytes);
    await assert.rejects(installer.install(impostor), { code: "plugin_exists" });
    assert.equal((await registry.get("BENCH-ECHO"))?.publisher, "clawhive-bench");
    const upper = await writePackage(root, "pkg-c", echoManifest({ name: "Bench-Echo" }), echo.bytes);
    await assert.rejects(installer.install(upper), /name: expected a lowercase name/);
    assert.equal((await registry.list()).length, 1);
  } finally {
    await close();
  }
});

test("an upgrade that widens needs acceptance and shows the diff; a narrowing one does not", async () => {
  const { installer, registry, close } = await place();
  try {
    await installer.install(await writePackage(root, "up-1", echoManifest(), echo.bytes));
    const before = (await registry.get("bench-echo"))!;
    const wider = await writePackage(root, "up-2", echoManifest({ version: "0.2.0", capabilities: ["fs.read", "kv", "log"], publisher: "clawhive-bench" }), echo.bytes);
    const refused = await installer.upgrade("bench-echo", wider).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof UpgradeNeedsAcceptance, String(refused));
    assert.deepEqual(refused.diff.lines, ["+ capability log"]);
    assert.equal((await registry.get("bench-echo"))?.version, "0.1.0");
    assert.equal((await registry.get("bench-echo"))?.updatedAt, before.updatedAt);
    const accepted = await installer.upgrade("bench-echo", wider, { accept: true });
    assert.equal(accepted.action, "upgraded");
    assert.equal((await registry.get("bench-echo"))?.version, "0.2.0");
    // Narrowing (a tool's risk raised, a capability dropped): no acceptance needed.
    const tools = { echo: { risk: "guarded" }, hostloop: { risk: "safe" }, kvloop: { risk: "safe" } };
    const narrower = await writePackage(root, "up-3", echoManifest({ version: "0.3.0", tools }), echo.bytes);
    const narrowed = await installer.upgrade("bench-echo", narrower);
    assert.deepEqual(narrowed.diff?.lines, ["- capability log", "- tool echo: risk raised safe → guarded"]);
    // Other content under an installed version is refused; another plugin's package too.
    const sameVersion = await writePackage(root, "up-4", echoManifest({ version: "0.3.0", description: "changed" }), echo.bytes);
    await assert.rejects(installer.upgrade("bench-echo", sameVersion), { code: "plugin_version_exists" });
    const otherName = await writePackage(root, "up-5", echoManifest({ name: "other", version: "9.0.0" }), echo.bytes);
    await assert.rejects(installer.upgrade("bench-echo", otherName), { code: "plugin_name_mismatch" });
    await assert.rejects(installer.upgrade("missing", narrower), { code: "not_found" });
  } finally {
    await close();
  }
});

test("removal is refused while an unfinished run uses the plugin, and blobs go with the last name", async () => {
  const { store, installer, registry, close } = await place();
  try {
    await installer.install(await writePackage(root, "rm-1", echoManifest(), echo.bytes));
    const records = new RunRecords(store);
    await records.create({ id: "run_1", traceId: "t", taskId: "k", parentRunId: null, agent: "a", plugins: ["BENCH-echo"], task: null, taskGrants: null, createdAt: 1 });
    await assert.rejects(installer.remove("bench-echo"), (e: ClawhiveError) => e.code === "plugin_in_use" && e.message.includes("run_1"));
    assert.ok(await registry.get("bench-echo"));
    await records.end("run_1", null, 2);
    assert.equal((await installer.remove("bench-echo")).name, "bench-echo");
    assert.equal(await registry.get("bench-echo"), undefined);
    assert.equal((await store.execute("SELECT count(*) AS n FROM plugin_blob_chunks")).rows[0]!.n, 0);
    await assert.rejects(installer.remove("bench-echo"), { code: "not_found" });
  } finally {
    await close();
  }
});

/** A throwaway certificate for `localhost`, made with the openssl CLI. */
function selfSignedCert(dir: string): { key: string; cert: string } {
  const key = join(dir, "tls.key");
  const cert = join(dir, "tls.crt");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"], { stdio: "ignore" });
  return { key: execFileSync("cat", [key], { encoding: "utf8" }), cert: execFileSync("cat", [cert], { encoding: "utf8" }) };
}
