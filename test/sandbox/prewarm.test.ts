/**
 * Readying a plugin ahead of a run (Sandbox.prewarm) fills its pool of unbound instances: never
 * past the pool's size when several ask at once or a refill is under way, and a readied instance
 * still refuses host calls until it is bound.
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
