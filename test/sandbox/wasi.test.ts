/**
 * clawhive's own WASI 0.2, served per instance: a component built with WASI on (the wasi-probe,
 * whose only way out is WASI) has every effect routed through the real fs and http proxies and
 * the log, each deny beside a control that passes.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it, test } from "node:test";
import { buildPlugin } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir } from "../../runtime/plugins/locations.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { Sandbox, type SandboxPlugin } from "../../runtime/sandbox/index.js";
import { MAX_STDIO_BYTES } from "../../runtime/sandbox/wasi/cli.js";
import { listen } from "../host-proxies/http/_fixtures.js";
import { proxyBinding, type ProxyBinding } from "../helpers/proxy-binding.js";

const WASI_PROBE = join(PROJECT_ROOT, "test", "plugins", "wasi-probe");

let sandbox: Sandbox;
let probe: SandboxPlugin;
let root: string;
let outside: string;
const opened: Array<{ close(): Promise<void> }> = [];

before(async () => {
  sandbox = new Sandbox({ workers: 1, callTimeoutMs: 20_000, memoryMaxMb: 128, poolSize: 0 });
  probe = await sandbox.load(await buildPlugin(WASI_PROBE, { cacheDir: defaultBuildCacheDir() }));
  root = await mkdtemp(join(tmpdir(), "clawhive-wasi-"));
  outside = await mkdtemp(join(tmpdir(), "clawhive-wasi-outside-"));
  await mkdir(join(root, "work", "sub"), { recursive: true });
  await mkdir(join(root, "ro"));
  await writeFile(join(root, "work", "a.txt"), "alpha");
  await writeFile(join(root, "work", ".env"), "TOKEN=1");
  await writeFile(join(root, "ro", "r.txt"), "read only");
  await writeFile(join(outside, "secret.txt"), "outside");
  await symlink(join(outside, "secret.txt"), join(root, "work", "link"));
  await symlink(outside, join(root, "work", "linkdir"));
});
after(async () => {
  await sandbox.close();
  for (const proxy of opened) await proxy.close();
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function binding(options: { httpPort?: number } = {}): Promise<ProxyBinding> {
  const bound = await proxyBinding(root, options);
  opened.push(bound);
  return bound;
}

async function call(tool: string, input: Record<string, unknown>, bound: ProxyBinding) {
  const instance = await sandbox.acquire(probe, { label: "wasi", handler: bound.handler });
  try {
    return JSON.parse(await instance.call(tool, JSON.stringify(input))) as unknown;
  } finally {
    instance.destroy();
  }
}

async function refusal(tool: string, input: Record<string, unknown>, bound: ProxyBinding): Promise<string> {
  const instance = await sandbox.acquire(probe, { label: "wasi", handler: bound.handler });
  try {
    await instance.call(tool, JSON.stringify(input));
  } catch (error) {
    return (error as Error).message;
  } finally {
    instance.destroy();
  }
  assert.fail(`${tool} ${JSON.stringify(input)} was not refused`);
}

test("the environment, arguments and config are the plugin's grant, never the worker's process", async () => {
  const bound = await binding();
  const seen = (await call("env", {}, bound)) as { env: string[][]; args: string[]; region: string; missing: null };
  assert.deepEqual(seen, { env: [["GREETING", "hello"]], args: ["wasi-probe"], region: "eu-west", missing: null });
  assert.ok(!seen.env.some(([k]) => k === "PATH" || k === "HOME"));
});

test("clocks and random are served", async () => {
  const seen = (await call("clock", {}, await binding())) as { now: number; random: number; bytes: number[] };
  assert.ok(Math.abs(seen.now - Date.now()) < 60_000);
  assert.ok(seen.random >= 0 && seen.random < 1);
  assert.equal(seen.bytes.length, 4);
});

describe("wasi:filesystem: preopens are the run's mounts, every operation through the fs proxy", () => {
  it("control: preopens, a read, a write and a listing inside the mount", async () => {
    const bound = await binding();
    assert.deepEqual(await call("preopens", {}, bound), ["/work", "/ro"]);
    assert.deepEqual(await call("read", { path: "a.txt" }, bound), { text: "alpha" });
    assert.deepEqual(await call("write", { path: "sub/new.txt", text: "written" }, bound), {});
    assert.equal(await readFile(join(root, "work", "sub", "new.txt"), "utf8"), "written");
    assert.deepEqual(await call("read", { path: "sub/../sub/./new.txt" }, bound), { text: "written" });
    const listing = (await call("list", {}, bound)) as string[];
    assert.ok(listing.includes("a.txt:regular-file") && listing.includes("sub:directory"), listing.join());
    // Every effect reached the fs proxy as a host call with the guest path.
    assert.ok(bound.calls.some((c) => c.call.fn === "write" && c.call.args[0] === "/work/sub/new.txt" && c.ok));
  });

  const escapes: Array<{ name: string; input: Record<string, unknown>; refused: RegExp; reachedProxy: boolean }> = [
    { name: "`..` above the preopen", input: { path: "../etc/passwd" }, refused: /not-permitted/, reachedProxy: false },
    { name: "`..` after descending", input: { path: "sub/../../ro/r.txt" }, refused: /not-permitted/, reachedProxy: false },
    { name: "an absolute path", input: { path: "/etc/passwd" }, refused: /not-permitted/, reachedProxy: false },
    { name: "a symlink to a file outside", input: { path: "link" }, refused: /access/, reachedProxy: true },
    { name: "a path through a symlinked directory", input: { path: "linkdir/secret.txt" }, refused: /access/, reachedProxy: true },
    { name: "a denied name (.env)", input: { path: ".env" }, refused: /access/, reachedProxy: true },
    { name: "a write into a read-only preopen", input: { mount: "/ro", path: "r.txt", text: "x" }, refused: /access|bad-descriptor/, reachedProxy: true },
  ];
  for (const row of escapes) {
    it(`refused: ${row.name}`, async () => {
      const bound = await binding();
      const tool = "text" in row.input ? "write" : "read";
      assert.match(await refusal(tool, row.input, bound), row.refused);
      const denied = bound.calls.filter((c) => !c.ok && c.call.iface === "fs");
      if (row.reachedProxy) assert.ok(denied.some((c) => (c.error as { tag: string }).tag === "denied"), JSON.stringify(bound.calls));
      else assert.deepEqual(bound.calls.filter((c) => c.call.fn !== "mounts"), [], "refused before any host call");
    });
  }
  it("control: the read-only preopen is readable", async () => {
    assert.deepEqual(await call("read", { mount: "/ro", path: "r.txt" }, await binding()), { text: "read only" });
  });
  it("the outside file is untouched", async () => {
    assert.equal(await readFile(join(outside, "secret.txt"), "utf8"), "outside");
  });
});

describe("wasi:http: every request through the http proxy", () => {
  const metadata = [
    { name: "a metadata address", url: "http://169.254.169.254/latest/meta-data/" },
    { name: "a name resolving to a metadata address", url: "http://metadata.test/latest/meta-data/" },
    { name: "a host the grant does not list", url: "http://elsewhere.test/" },
  ];
  for (const row of metadata) {
    it(`refused: ${row.name}`, async () => {
      const bound = await binding();
      assert.match(await refusal("fetch", { url: row.url }, bound), /failed/);
      const fetches = bound.calls.filter((c) => c.call.iface === "http");
      assert.equal(fetches.length, 1);
      assert.equal(fetches[0]!.ok, false);
      assert.equal((fetches[0]!.error as { tag: string }).tag, "denied", JSON.stringify(fetches[0]!.error));
    });
  }
  it("control: an allowed host is fetched, method, headers and all", async (t) => {
    const server = await listen(t, (req, res) => res.end(`got ${req.method} ${req.url} ${String(req.headers["x-probe"])}`));
    const bound = await binding({ httpPort: server.port });
    const seen = (await call("fetch", { url: `http://api.test:${server.port}/path?q=1`, headers: { "x-probe": "yes" } }, bound)) as { status: number; body: string };
    assert.deepEqual(seen, { status: 200, body: "got GET /path?q=1 yes" });
  });
});

describe("wasi:cli: stdout goes to the log, capped; exit traps", () => {
  it("control: a line printed reaches the log", async () => {
    const bound = await binding();
    await call("print", { text: "hello from wasi" }, bound);
    assert.deepEqual(bound.logs, ["hello from wasi"]);
  });
  it("a huge write is cut at the cap, said once, and costs no further host calls", async () => {
    const bound = await binding();
    await call("flood", { lines: 20_000 }, bound);
    const bytes = bound.logs.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    assert.ok(bytes <= MAX_STDIO_BYTES + 200, `${bytes} bytes logged`);
    assert.ok(bound.logs.length < 200, `${bound.logs.length} log calls`);
    assert.equal(bound.logs.filter((l) => /output over \d+ bytes dropped/.test(l)).length, 1);
  });
  it("exit ends the call as a trap, never the worker", async () => {
    const bound = await binding();
    assert.match(await refusal("exit", {}, bound), /wasi:cli\/exit/);
    assert.equal(((await call("env", {}, bound)) as { region: string }).region, "eu-west");
  });
});
