/**
 * Extism plugins in the sandbox: the same reply shapes, limits and host-call bridge as
 * components, and what clawhive does not serve (unknown WASI functions, other modules) refused even for a
 * module that never passed the install-time import check (loaded straight into a Sandbox here).
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, test } from "node:test";
import type { HostCall, HostCallHandler } from "../../host-proxies/types.js";
import { GuestToolError, Sandbox, type SandboxEvent, type SandboxPlugin } from "../../runtime/sandbox/index.js";
import { extismModulePackage } from "../helpers/extism-modules.js";
import { buildExtismProbe, compileExtism } from "../helpers/extism-probe.js";
import { tempDir } from "../helpers/runtime.js";

let sandbox: Sandbox;
let probe: SandboxPlugin;
let cacheDir: string;
const events: SandboxEvent[] = [];
const calls: HostCall[] = [];

const handler: HostCallHandler = async (call) => {
  calls.push(call);
  if (call.iface === "fs" && call.fn === "read") return { ok: true, value: new TextEncoder().encode(`content of ${String(call.args[0])}`) };
  if (call.iface === "fs" && call.fn === "write") return { ok: true, value: undefined };
  if (call.iface === "log" && call.fn === "write") return { ok: true, value: undefined };
  return { ok: false, error: { tag: "denied", val: { capability: call.iface, reason: "not-granted", message: `${call.iface}.${call.fn} is not granted` } } };
};
const bind = (label: string) => sandbox.acquire(probe, { label, handler });

async function loadModule(name: string, options: Parameters<typeof extismModulePackage>[1]): Promise<SandboxPlugin> {
  const pkg = await extismModulePackage(name, options);
  try {
    return await sandbox.load(await compileExtism(pkg, cacheDir));
  } finally {
    await rm(pkg.dir, { recursive: true, force: true });
  }
}

before(async () => {
  cacheDir = await tempDir("clawhive-extism-cache-");
  sandbox = new Sandbox({ workers: 2, callTimeoutMs: 5_000, memoryMaxMb: 64, poolSize: 1, onEvent: (e) => events.push(e) });
  const pkg = await buildExtismProbe();
  probe = await sandbox.load(await compileExtism(pkg, cacheDir));
  await rm(pkg.dir, { recursive: true, force: true });
});
after(async () => {
  await sandbox.close();
  await rm(cacheDir, { recursive: true, force: true });
});

test("describe gives the component shape: schema as JSON text, manifest capabilities by default, risk from plugin.json", async () => {
  const tools = await sandbox.describe(probe);
  const byName = new Map(tools.map((t) => [t.name, t]));
  assert.equal(tools.length, 17);
  assert.deepEqual(byName.get("read"), {
    name: "read",
    description: "Reads a file through fs_read.",
    inputSchema: JSON.stringify({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
    capabilities: ["fs.read"],
    risk: "safe",
  });
  assert.deepEqual(byName.get("count")?.capabilities, ["fs.read", "fs.write", "log"]);
  assert.equal(byName.get("write")?.risk, "guarded");
});

test("a call takes JSON and answers the text of its content", async () => {
  const instance = await bind("echo");
  const input = { text: 'a "quoted" value', n: 3 };
  assert.deepEqual(JSON.parse(await instance.call("echo", JSON.stringify(input))), input);
  await assert.rejects(instance.call("echo", "not json"), (e: unknown) => e instanceof GuestToolError && (e.payload as { tag: string }).tag === "invalid-input");
  instance.destroy();
});

test("host calls reach the binding as a component's would: JSON params in, bytes as Uint8Array", async () => {
  const instance = await bind("host");
  calls.length = 0;
  const read = JSON.parse(await instance.call("read", JSON.stringify({ path: "/w/notes.md" }))) as { ok: { $bytes: string } };
  assert.equal(Buffer.from(read.ok.$bytes, "base64").toString(), "content of /w/notes.md");
  assert.deepEqual(JSON.parse(await instance.call("write", JSON.stringify({ path: "/w/out.txt", data: Buffer.from("hello").toString("base64") }))), { ok: null });
  assert.deepEqual(JSON.parse(await instance.call("log", JSON.stringify({ message: "hi" }))), { ok: null });
  assert.deepEqual(calls.map((c) => [c.iface, c.fn]), [["fs", "read"], ["fs", "write"], ["log", "write"]]);
  assert.deepEqual(calls[0]!.args, ["/w/notes.md"]);
  assert.ok(calls[1]!.args[1] instanceof Uint8Array);
  assert.equal(Buffer.from(calls[1]!.args[1] as Uint8Array).toString(), "hello");
  assert.deepEqual(calls[2]!.args, ["info", "hi"]);
  instance.destroy();
});

test("isError, error_set and a passed-on host denial are tool errors; the instance lives on", async () => {
  const instance = await bind("errors");
  const payload = async (name: string, input = "{}") => {
    try {
      await instance.call(name, input);
    } catch (error) {
      assert.ok(error instanceof GuestToolError, String(error));
      return error.payload;
    }
    assert.fail(`${name} did not fail`);
  };
  assert.deepEqual(await payload("fail"), { tag: "failed", val: "probe failed on request" });
  assert.deepEqual(await payload("err"), { tag: "failed", val: "probe error_set" });
  // The probe passes a host error on as clawhive's `toolError`: the denial stays structured.
  const denial = { capability: "fs", reason: "not-granted", message: "fs.write is not granted" };
  const denied = sandbox.acquire(probe, { label: "denier", handler: async () => ({ ok: false, error: { tag: "denied", val: denial } }) });
  assert.deepEqual(await (async () => {
    const d = await denied;
    try {
      await d.call("write", JSON.stringify({ path: "/w/x", data: "" }));
    } catch (error) {
      return (error as GuestToolError).payload;
    } finally {
      d.destroy();
    }
  })(), { tag: "denied", val: denial });
  assert.equal(instance.state, "bound");
  assert.equal(await instance.call("count", "{}"), "1");
  instance.destroy();
});

test("a trap kills only that instance; a fresh one works", async () => {
  const instance = await bind("trap");
  await assert.rejects(instance.call("trap", "{}"), { code: "plugin_trapped", message: /unreachable/ });
  assert.equal(instance.state, "dead");
  await assert.rejects(instance.call("echo", "{}"), { code: "instance_dead" });
  const fresh = await bind("after-trap");
  assert.equal(await fresh.call("echo", "{}"), "{}");
  fresh.destroy();
});

test("an infinite loop is stopped at its deadline while other runs' calls all succeed", async () => {
  const runaway = await bind("runaway");
  const others = await Promise.all([1, 2, 3].map((i) => bind(`other-${i}`)));
  const looping = runaway.call("spin", "{}", { timeoutMs: 300 });
  const pending: Array<Promise<string>> = [];
  for (let round = 0; round < 20; round++) for (const other of others) pending.push(other.call("echo", JSON.stringify({ round })));
  await assert.rejects(looping, { code: "deadline_exceeded" });
  assert.deepEqual((await Promise.allSettled(pending)).filter((r) => r.status === "rejected"), []);
  assert.ok(events.some((e) => e.type === "worker-exit" && /deadline/.test(e.reason)));
  for (const other of others) {
    assert.equal(await other.call("echo", '{"after":1}'), '{"after":1}');
    other.destroy();
  }
});

test("growing wasm memory is stopped at the memory cap", async () => {
  const instance = await bind("grow");
  await assert.rejects(instance.call("grow", "{}"), { code: "memory_cap" });
  assert.ok(process.memoryUsage().rss < 2 * 1024 ** 3);
  const fresh = await bind("after-grow");
  assert.equal(await fresh.call("echo", "{}"), "{}");
  fresh.destroy();
});

test("kernel blocks (outside wasm memory) are capped too", async () => {
  const instance = await bind("hog");
  await assert.rejects(instance.call("hog", "{}"), { code: "memory_cap" });
  assert.equal(instance.state, "dead");
  const probes = await sandbox.probeWorkers();
  assert.ok(probes.every((p) => p.envKeys === 0));
});

test("control: blocks within the budget work, and the budget is per call (freed after each)", async () => {
  const instance = await bind("alloc");
  // 20 calls of 8 MiB each: 160 MiB in all, over the 64 MiB cap were it not released per call.
  for (let i = 0; i < 20; i++) assert.equal(await instance.call("alloc", JSON.stringify({ mib: 8 })), "ok");
  instance.destroy();
});

test("Extism vars outlive a call (not a run's instance) and are capped at 1 MiB", async () => {
  const a = await bind("vars-a");
  const b = await bind("vars-b");
  assert.equal(await a.call("recall", "{}"), "none");
  assert.equal(await a.call("remember", JSON.stringify({ value: "kept" })), "ok");
  await a.call("alloc", JSON.stringify({ mib: 1 }));
  assert.equal(await a.call("recall", "{}"), "kept");
  assert.equal(await b.call("recall", "{}"), "none");
  await assert.rejects(b.call("varbomb", "{}"), { code: "plugin_trapped", message: /Extism vars: .* would exceed the limit of 1048576/ });
  a.destroy();
});

test("an instance serves more than 16,384 calls (the SDK's block index would run out without reset)", async () => {
  const instance = await bind("many");
  const total = 16_500;
  let last = "";
  for (let i = 0; i < total; i++) last = await instance.call("count", "{}");
  assert.equal(last, String(total));
  instance.destroy();
});

test("a result over the cap is refused, the instance is kept", async () => {
  const small = new Sandbox({ workers: 1, maxResultBytes: 1024, poolSize: 0 });
  try {
    const pkg = await buildExtismProbe();
    const plugin = await small.load(await compileExtism(pkg, cacheDir));
    await rm(pkg.dir, { recursive: true, force: true });
    const instance = await small.acquire(plugin, { label: "big", handler });
    await assert.rejects(instance.call("big", JSON.stringify({ bytes: 4096 })), { code: "result_too_large" });
    assert.equal(await instance.call("big", JSON.stringify({ bytes: 10 })), "x".repeat(10));
  } finally {
    await small.close();
  }
});

test("instances are isolated: guest state is per instance", async () => {
  const a = await bind("a");
  const b = await bind("b");
  await a.call("count", "{}");
  await a.call("count", "{}");
  assert.equal(await a.call("count", "{}"), "3");
  assert.equal(await b.call("count", "{}"), "1");
  a.destroy();
  b.destroy();
});

// Extism's own channels, for modules that skipped the install check. Each row has a control.
const channels: Array<{ name: string; imports: string; body: string; fails: RegExp; at: "instantiate" | "call" }> = [
  {
    name: "Extism HTTP (http_request) with a request that is not JSON",
    imports: '(import "extism:host/env" "http_request" (func $http (param i64 i64) (result i64)))',
    body: "(drop (call $http (call $alloc (i64.const 8)) (i64.const 0)))",
    fails: /http_request: the request is not a JSON object/,
    at: "call",
  },
  {
    name: "a WASI function preview1 does not have (sock_open)",
    imports: '(import "wasi_snapshot_preview1" "sock_open" (func $open (param i32 i32 i32) (result i32)))',
    body: "",
    fails: /module="wasi_snapshot_preview1" function="sock_open"/,
    at: "instantiate",
  },
  {
    name: "a user function that is no clawhive host function",
    imports: '(import "extism:host/user" "read_secrets" (func $secrets (param i64) (result i64)))',
    body: "",
    fails: /module="extism:host\/user" function="read_secrets"/,
    at: "instantiate",
  },
  {
    name: "another module (env)",
    imports: '(import "env" "getenv" (func $getenv (param i32) (result i32)))',
    body: "",
    fails: /module="env" function="getenv"/,
    at: "instantiate",
  },
];

for (const row of channels) {
  test(`off at run time even without the import check: ${row.name}`, async () => {
    const plugin = await loadModule(`channel-${channels.indexOf(row)}`, { imports: row.imports, body: row.body });
    if (row.at === "instantiate") {
      await assert.rejects(sandbox.acquire(plugin, { label: "channel", handler }), (e: Error & { code?: string }) => e.code === "instantiate_failed" && row.fails.test(e.message));
      return;
    }
    const instance = await sandbox.acquire(plugin, { label: "channel", handler });
    await assert.rejects(instance.call("run", "{}"), (e: Error & { code?: string }) => e.code === "plugin_trapped" && row.fails.test(e.message));
  });
}

test("control: the same module shape with the import but without the forbidden call runs", async () => {
  const plugin = await loadModule("channel-control", { imports: channels[0]!.imports, body: "" });
  const instance = await sandbox.acquire(plugin, { label: "control", handler });
  assert.equal(await instance.call("run", "{}"), "reached");
  instance.destroy();
});

test("control: a clawhive host function import instantiates and is served", async () => {
  const plugin = await loadModule("user-control", {
    imports: '(import "extism:host/user" "fs_mounts" (func $mounts (param i64) (result i64)))',
    data: [[4096, "[]"]],
    body: "(drop (call $mounts (call $block (i32.const 4096) (i32.const 2))))",
  });
  calls.length = 0;
  const instance = await sandbox.acquire(plugin, { label: "user-control", handler });
  assert.equal(await instance.call("run", "{}"), "reached");
  assert.deepEqual(calls, [{ iface: "fs", fn: "mounts", args: [] }]);
  instance.destroy();
});

test("Extism's own log functions go to the log proxy through the binding", async () => {
  const plugin = await loadModule("kernel-log", {
    imports: '(import "extism:host/env" "log_warn" (func $warn (param i64)))',
    body: '(call $warn (call $alloc (i64.const 0)))',
    capabilities: ["log"],
  });
  calls.length = 0;
  const instance = await sandbox.acquire(plugin, { label: "kernel-log", handler });
  assert.equal(await instance.call("run", "{}"), "reached");
  assert.deepEqual(calls, [{ iface: "log", fn: "write", args: ["warn", ""] }]);
  instance.destroy();
});
