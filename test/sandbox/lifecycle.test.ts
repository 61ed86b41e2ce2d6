import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildPlugin } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir } from "../../runtime/plugins/locations.js";
import { Sandbox, type SandboxEvent, type SandboxPlugin } from "../../runtime/sandbox/index.js";
import type { HostCallHandler } from "../../host-proxies/types.js";
import { PROBE_PLUGIN } from "../helpers/runtime.js";

let sandbox: Sandbox;
let probe: SandboxPlugin;
const events: SandboxEvent[] = [];
const echoHandler: HostCallHandler = async (call) =>
  call.fn === "read" ? { ok: true, value: new TextEncoder().encode(`content of ${String(call.args[0])}`) } : { ok: false, error: { tag: "io", val: "not served" } };

before(async () => {
  sandbox = new Sandbox({ workers: 2, callTimeoutMs: 5_000, memoryMaxMb: 64, poolSize: 1, onEvent: (e) => events.push(e) });
  probe = await sandbox.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
});
after(() => sandbox.close());

test("a host call from an unbound instance is refused and reported", async () => {
  const before = events.filter((e) => e.type === "unbound-host-call").length;
  const tools = await sandbox.describe(probe);
  const echo = tools.find((t) => t.name === "echo");
  // The probe's describe() tries fs.read; the text it got back is in the description.
  assert.match(echo?.description ?? "", /"reason":"unbound-instance"/);
  assert.ok(events.filter((e) => e.type === "unbound-host-call").length >= before + 1);
});

test("control: the same host call from a bound instance is served", async () => {
  const instance = await sandbox.acquire(probe, { label: "bound", handler: echoHandler });
  assert.deepEqual(JSON.parse(await instance.call("read", JSON.stringify({ path: "/w/x" }))), { text: "content of /w/x" });
  instance.destroy();
});

test("an instance is bound once and cannot be rebound", async () => {
  const instance = await sandbox.acquire(probe, { label: "a", handler: echoHandler });
  assert.throws(() => instance.bind({ label: "b", handler: echoHandler }), /cannot be bound/);
  assert.equal(instance.binding?.label, "a");
  assert.ok(Object.isFrozen(instance.binding));
  instance.destroy();
});

test("a trap yields a typed error and kills only that instance", async () => {
  const instance = await sandbox.acquire(probe, { label: "trap", handler: echoHandler });
  await assert.rejects(instance.call("trap", "{}"), { code: "plugin_trapped" });
  assert.equal(instance.state, "dead");
  await assert.rejects(instance.call("echo", "{}"), { code: "instance_dead" });
});

test("an infinite loop is stopped at its deadline while another run's calls all succeed", async () => {
  const runaway = await sandbox.acquire(probe, { label: "runaway", handler: echoHandler });
  const others = await Promise.all([1, 2, 3].map((i) => sandbox.acquire(probe, { label: `other-${i}`, handler: echoHandler })));
  const looping = runaway.call("loop", "{}", { timeoutMs: 300 });
  const calls: Array<Promise<string>> = [];
  for (let round = 0; round < 30; round++) for (const other of others) calls.push(other.call("echo", JSON.stringify({ round })));
  await assert.rejects(looping, { code: "deadline_exceeded" });
  const results = await Promise.allSettled(calls);
  assert.deepEqual(results.filter((r) => r.status === "rejected"), []);
  assert.ok(events.some((e) => e.type === "worker-exit" && /deadline/.test(e.reason)));
  // The survivors keep working after the worker was replaced.
  for (const other of others) assert.equal(await other.call("echo", '{"after":1}'), '{"after":1}');
});

test("a memory bomb is stopped at the cap and the process lives", async () => {
  const instance = await sandbox.acquire(probe, { label: "bomb", handler: echoHandler });
  await assert.rejects(instance.call("bomb", "{}"), { code: "memory_cap" });
  const rss = process.memoryUsage().rss;
  assert.ok(rss < 2 * 1024 ** 3, `rss ${rss}`);
  const fresh = await sandbox.acquire(probe, { label: "after-bomb", handler: echoHandler });
  assert.equal(await fresh.call("echo", "{}"), "{}");
});

test("a result over the cap is refused, the instance is kept", async () => {
  const small = new Sandbox({ workers: 1, maxResultBytes: 1024, poolSize: 0 });
  try {
    const plugin = await small.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
    const instance = await small.acquire(plugin, { label: "big", handler: echoHandler });
    await assert.rejects(instance.call("big", JSON.stringify({ bytes: 4096 })), { code: "result_too_large" });
    assert.equal(await instance.call("big", JSON.stringify({ bytes: 10 })), "x".repeat(10));
  } finally {
    await small.close();
  }
});

test("a worker's process.env is empty", async () => {
  process.env.CLAWHIVE_TEST_SECRET = "must-not-leak";
  try {
    const workers = await sandbox.probeWorkers();
    assert.ok(workers.length >= 1);
    for (const w of workers) assert.equal(w.envKeys, 0);
  } finally {
    delete process.env.CLAWHIVE_TEST_SECRET;
  }
});

test("instances are isolated: guest state is per instance", async () => {
  const a = await sandbox.acquire(probe, { label: "a", handler: echoHandler });
  const b = await sandbox.acquire(probe, { label: "b", handler: echoHandler });
  await a.call("count", "{}");
  await a.call("count", "{}");
  assert.equal(JSON.parse(await a.call("count", "{}")).counter, 3);
  assert.equal(JSON.parse(await b.call("count", "{}")).counter, 1);
  a.destroy();
  b.destroy();
});
