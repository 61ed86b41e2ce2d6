import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createKvProxy, type KvProxy } from "../../../host-proxies/kv/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { bytes, DRIVERS, fileStoreUrl, memoryStore, openAt, text } from "./_fixtures.js";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "_kv-child.js");
const run = promisify(execFile);

/** Sets `count` distinct 10-byte entries (key + value) at once through `proxies` in turn. */
async function setMany(proxies: readonly KvProxy[], count: number, tag = "k"): Promise<{ ok: number; denied: number }> {
  let ok = 0;
  let denied = 0;
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const key = `${tag}-${String(i).padStart(3, "0")}`;
      try {
        await proxies[i % proxies.length]!.set(key, new Uint8Array(10 - key.length));
        ok++;
      } catch (error) {
        if (!(error instanceof HostProxyError && error.hostError.tag === "denied")) throw error;
        assert.equal(error.hostError.val.reason, "quota-exceeded");
        denied++;
      }
    }),
  );
  return { ok, denied };
}

for (const driver of DRIVERS) {
  test(`parallel sets on one proxy never pass the quota (${driver} driver)`, async (t) => {
    const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 1000 });
    assert.deepEqual(await setMany([kv], 200), { ok: 100, denied: 100 });
    assert.deepEqual(await kv.usage(), { bytes: 1000, keys: 100, quotaBytes: 1000 });
  });

  test(`parallel overwrites that grow keys never pass the quota (${driver} driver)`, async (t) => {
    const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 100 });
    for (let i = 0; i < 10; i++) await kv.set(`k${i}`, new Uint8Array(0)); // 2 bytes each: 20
    // Each grows its key by 20 bytes; only 4 of the 10 fit in the 80 left.
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => kv.set(`k${i}`, new Uint8Array(20))));
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 4);
    assert.deepEqual(await kv.usage(), { bytes: 100, keys: 10, quotaBytes: 100 });
  });
}

test("two proxies on one namespace share one quota", async (t) => {
  const store = await memoryStore(t);
  const a = createKvProxy(store, { namespace: "a/p/n", quotaBytes: 500 });
  const b = createKvProxy(store, { namespace: "a/p/n", quotaBytes: 500 });
  assert.deepEqual(await setMany([a, b], 80), { ok: 50, denied: 30 });
  assert.equal((await b.usage()).bytes, 500);
});

// Two store handles on one file in one process: each set is one batch, so no handle holds the
// write lock across an await, and the other's BEGIN IMMEDIATE never waits on this thread.
for (const [first, second] of [["embedded", "embedded"], ["embedded", "client"]] as const) {
  test(`two handles on one file store (${first} + ${second}): one namespace, one quota`, async (t) => {
    const url = await fileStoreUrl(t);
    const one = createKvProxy(await openAt(t, url, first), { namespace: "a/p/n", quotaBytes: 1000 });
    const two = createKvProxy(await openAt(t, url, second), { namespace: "a/p/n", quotaBytes: 1000 });
    await one.set("written-by-one", bytes("hello"));
    assert.equal(text(await two.get("written-by-one")), "hello", "a write through one handle is read through the other");
    assert.equal(await two.delete("written-by-one"), true);
    assert.equal(await one.get("written-by-one"), undefined);
    assert.deepEqual(await setMany([one, two], 150), { ok: 100, denied: 50 });
    assert.deepEqual(await one.usage(), await two.usage());
    assert.equal((await one.usage()).bytes, 1000);
  });
}

test("three processes on one file store: sets racing from all of them never pass the quota", async (t) => {
  const url = await fileStoreUrl(t);
  const kv = createKvProxy(await openAt(t, url), { namespace: "shared/p/n", quotaBytes: 2000 });
  const child = (tag: string) => run(process.execPath, [CHILD, url, tag, "150", "2000"], { timeout: 300_000 });
  const [x, y, mine] = await Promise.all([child("x"), child("y"), setMany([kv], 150, "z")]);
  const counts = [JSON.parse(x.stdout) as { ok: number; denied: number }, JSON.parse(y.stdout) as { ok: number; denied: number }, mine];
  assert.equal(counts.reduce((n, c) => n + c.ok, 0), 200, JSON.stringify(counts));
  assert.equal(counts.reduce((n, c) => n + c.denied, 0), 250);
  assert.deepEqual(await kv.usage(), { bytes: 2000, keys: 200, quotaBytes: 2000 });
});
