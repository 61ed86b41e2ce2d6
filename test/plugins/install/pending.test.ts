/** The pending-upgrade table's bounds: one per plugin, at most MAX_PENDING_UPGRADES, a week each; blobs collected with them. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_PENDING_UPGRADES, PENDING_UPGRADE_TTL_MS, pluginMigrations, PluginRegistry } from "../../../runtime/plugins/install/index.js";
import { applyMigrations, openStore } from "../../../runtime/store/index.js";
import { tempDir } from "../../helpers/runtime.js";

async function place() {
  const dir = await tempDir("clawhive-pending-");
  const clock = { at: 1_000_000, now() { return this.at; } };
  const store = await openStore({ url: `file:${join(dir, "s.db")}` });
  await applyMigrations(store, pluginMigrations, { clock });
  const registry = new PluginRegistry(store, { clock });
  const blobs = async () => Number((await store.execute("SELECT count(*) AS n FROM plugin_blobs")).rows[0]!.n);
  return { clock, registry, blobs, close: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
}

function pending(name: string, version: string) {
  const bytes = new TextEncoder().encode(`${name}@${version}`);
  const blobSha256 = createHash("sha256").update(bytes).digest("hex");
  const upgrade = { name, version, manifestText: "{}", blobSha256, origin: "test", diff: { widening: true, lines: ["+ capability log"] }, base: { version: "0.1.0", sha256: "0".repeat(64), updatedAt: 1 }, proposedBy: "cli:test" };
  return { upgrade, bytes };
}

test("one pending upgrade per plugin (case-insensitive): a newer one replaces it and its blob goes; control: another plugin's stays", async () => {
  const { registry, blobs, close } = await place();
  try {
    const a = pending("alpha", "0.2.0");
    await registry.pending.put(a.upgrade, a.bytes);
    const b = pending("beta", "0.2.0");
    await registry.pending.put(b.upgrade, b.bytes);
    const newer = pending("Alpha", "0.3.0");
    await registry.pending.put(newer.upgrade, newer.bytes);
    assert.deepEqual((await registry.pending.list()).map((p) => `${p.name}@${p.version}`), ["Alpha@0.3.0", "beta@0.2.0"]);
    assert.equal(await blobs(), 2, "the replaced upgrade's blob was collected");
    assert.equal((await registry.pending.get("alpha"))?.version, "0.3.0");
    assert.equal(await registry.pending.remove("alpha", a.upgrade.blobSha256), false, "not the blob that is pending now");
    assert.equal(await registry.pending.remove("alpha"), true);
    assert.equal(await blobs(), 1);
  } finally {
    await close();
  }
});

test(`at most ${MAX_PENDING_UPGRADES} are kept (the oldest go first), and none past its week`, async () => {
  const { clock, registry, blobs, close } = await place();
  try {
    for (let i = 0; i <= MAX_PENDING_UPGRADES; i++) {
      clock.at += 1000;
      const p = pending(`p${String(i).padStart(2, "0")}`, "0.2.0");
      await registry.pending.put(p.upgrade, p.bytes);
    }
    const names = (await registry.pending.list()).map((p) => p.name);
    assert.equal(names.length, MAX_PENDING_UPGRADES);
    assert.ok(!names.includes("p00") && names.includes("p01") && names.includes(`p${MAX_PENDING_UPGRADES}`), names.join(","));
    assert.equal(await blobs(), MAX_PENDING_UPGRADES);
    clock.at += PENDING_UPGRADE_TTL_MS - 1000;
    assert.deepEqual((await registry.pending.list()).map((p) => p.name), [`p${MAX_PENDING_UPGRADES}`], "control: the newest is still within its week");
    clock.at += 1000;
    assert.deepEqual(await registry.pending.list(), []);
    assert.equal(await registry.pending.get(`p${MAX_PENDING_UPGRADES}`), undefined);
    // The next write drops the expired rows and their blobs.
    const p = pending("fresh", "0.2.0");
    await registry.pending.put(p.upgrade, p.bytes);
    assert.equal(await blobs(), 1);
  } finally {
    await close();
  }
});
