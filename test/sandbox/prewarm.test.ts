/**
 * Readying a plugin ahead of a run (Sandbox.prewarm) fills its pool of unbound instances: never
 * past the pool's size when several ask at once or a refill is under way, and a readied instance
 * still refuses host calls until it is bound. A sandbox may start its workers when it is made
 * (`startWorkers`, for `clawhive mcp serve`), so their boot is not on the first instance's path.
 */
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
const handler: HostCallHandler = async (call) =>
  call.fn === "read" ? { ok: true, value: new TextEncoder().encode(`content of ${String(call.args[0])}`) } : { ok: false, error: { tag: "io", val: "not served" } };

before(async () => {
  sandbox = new Sandbox({ workers: 2, callTimeoutMs: 5_000, poolSize: 2, onEvent: (e) => events.push(e) });
  probe = await sandbox.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
});
after(() => sandbox.close());

const created = () => events.filter((e) => e.type === "instance-created").length;

test("runs readying one plugin at once fill its pool once: never past its size", async () => {
  const from = created();
  await Promise.all([sandbox.prewarm(probe), sandbox.prewarm(probe), sandbox.prewarm(probe)]);
  assert.equal(sandbox.stats().pooled, 2);
  assert.equal(created() - from, 2);
});

test("readying while a refill is under way joins it (control: a take is refilled to the size)", async () => {
  const instance = await sandbox.acquire(probe, { label: "taker", handler });
  // acquire started a refill; a run readying the plugin now must not add a second instance.
  await sandbox.prewarm(probe);
  await sandbox.prewarm(probe);
  assert.equal(sandbox.stats().pooled, 2);
  instance.destroy();
});

test("a readied instance refuses host calls until bound; control: bound, it is served", async () => {
  await sandbox.prewarm(probe);
  const refused = events.filter((e) => e.type === "unbound-host-call").length;
  const bound = await sandbox.acquire(probe, { label: "bound", handler });
  assert.deepEqual(JSON.parse(await bound.call("read", JSON.stringify({ path: "/w/x" }))), { text: "content of /w/x" });
  assert.equal(events.filter((e) => e.type === "unbound-host-call").length, refused, "no unbound host call was made while pooled");
  bound.destroy();
});

test("a warm readying runs one describe in each pooled instance, unbound: its host call is refused; the instance then serves its binding", async () => {
  const refused = () => events.filter((e) => e.type === "unbound-host-call" && e.plugin === "probe").length;
  // Control: readying without warm-up runs nothing in the pooled instances.
  await sandbox.prewarm(probe);
  const before = refused();
  // The probe's describe reads a file: refused, since nothing has bound the instance.
  await sandbox.prewarm(probe, { warm: true });
  assert.equal(refused() - before, sandbox.stats().pooled, "one refused host call per warmed instance");
  assert.equal(sandbox.stats().pooled, 2);
  // Each instance is warmed once.
  await sandbox.prewarm(probe, { warm: true });
  assert.equal(refused() - before, 2);
  const bound = await sandbox.acquire(probe, { label: "after-warm", handler });
  assert.deepEqual(JSON.parse(await bound.call("read", JSON.stringify({ path: "/w/y" }))), { text: "content of /w/y" });
  bound.destroy();
});

test("an acquire while the pool is being filled takes the instance the fill adds; control: with no fill under way it creates one", async () => {
  const own = new Sandbox({ workers: 2, callTimeoutMs: 5_000, poolSize: 1 });
  const seen: boolean[] = [];
  own.observe((e) => {
    if (e.type === "instance-created") seen.push(e.warm);
  });
  try {
    const plugin = await own.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
    const filling = own.prewarm(plugin);
    const first = await own.acquire(plugin, { label: "during-fill", handler });
    await filling;
    assert.equal(seen[0], true, "the first instance is the fill's");
    assert.ok(!seen.includes(false), `no cold instance beside the fill: ${JSON.stringify(seen)}`);
    first.destroy();
    // Control: a sandbox whose pool is off has no fill to wait for; acquire instantiates.
    const bare = new Sandbox({ workers: 1, callTimeoutMs: 5_000, poolSize: 0 });
    const cold: boolean[] = [];
    bare.observe((e) => {
      if (e.type === "instance-created") cold.push(e.warm);
    });
    try {
      const p = await bare.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
      (await bare.acquire(p, { label: "no-fill", handler })).destroy();
      assert.deepEqual(cold, [false]);
    } finally {
      await bare.close();
    }
  } finally {
    await own.close();
  }
});

test("a sandbox that does not refill its pool leaves it empty after a take; control: the default refills it", async () => {
  // Control first (the suite's sandbox, default refill): a take is refilled, by itself.
  await sandbox.prewarm(probe);
  const started = performance.now();
  const instance = await sandbox.acquire(probe, { label: "taker", handler });
  await until(() => sandbox.stats().pooled === 2, "the pool refilled after a take");
  const refillMs = performance.now() - started;
  instance.destroy();

  const once = new Sandbox({ workers: 2, callTimeoutMs: 5_000, poolSize: 1, refillPool: false });
  try {
    const plugin = await once.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
    await once.prewarm(plugin);
    assert.equal(once.stats().pooled, 1, "the pool was filled once");
    const taken = await once.acquire(plugin, { label: "taker", handler });
    // Twice the time the control's refill took, and more.
    await new Promise((resolve) => setTimeout(resolve, 2 * refillMs + 200));
    assert.equal(once.stats().pooled, 0, "nothing was made after the take");
    taken.destroy();
  } finally {
    await once.close();
  }
});

test("a sandbox told to start its workers has them before any instance; control: by default none until the first", async () => {
  const idle = new Sandbox({ workers: 2, poolSize: 0 });
  const eager = new Sandbox({ workers: 2, poolSize: 0, startWorkers: true });
  try {
    assert.equal(idle.stats().workers, 0, "an idle sandbox holds no worker");
    assert.equal(eager.stats().workers, 2, "both workers started with the sandbox");
    // They are live threads that answer, holding nothing yet; asking starts no more of them.
    const replies = await eager.probeWorkers();
    assert.deepEqual(replies.map((r) => r.instances), [0, 0]);
    assert.equal(eager.stats().workers, 2);
    const plugin = await eager.load(await buildPlugin(PROBE_PLUGIN, { cacheDir: defaultBuildCacheDir() }));
    const bound = await eager.acquire(plugin, { label: "eager", handler });
    assert.deepEqual(JSON.parse(await bound.call("read", JSON.stringify({ path: "/w/z" }))), { text: "content of /w/z" });
    bound.destroy();
    assert.equal(eager.stats().workers, 2, "the instance went to a worker already started");
  } finally {
    await Promise.all([idle.close(), eager.close()]);
  }
  assert.equal(eager.stats().workers, 0, "closing ends the workers it started");
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
