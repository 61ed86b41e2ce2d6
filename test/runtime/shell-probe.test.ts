/**
 * The bubblewrap probe is remembered in the data dir (runtime/runtime/shell-probe.ts): a passing
 * probe is not run again until the binary changes; a failing one is never remembered; a forged or
 * stale file is not believed. The bwrap here is a script that counts its runs, then runs the real one.
 */
import assert from "node:assert/strict";
import { chmod, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { cachedSandboxProbe } from "../../runtime/runtime/shell-probe.js";
import { tempDir } from "../helpers/runtime.js";

const REAL_BWRAP = "/usr/bin/bwrap";
const required = process.env.CLAWHIVE_REQUIRE_SANDBOX === "1";
const available = await readFile(REAL_BWRAP).then(
  () => true,
  () => false,
);

/** A bwrap that appends a line to `count` each time it runs, then runs the real one (or fails). */
async function countingBwrap(dir: string, options: { fail?: boolean } = {}) {
  const path = join(dir, "bwrap");
  const count = join(dir, "runs");
  await writeFile(count, "");
  await writeFile(path, `#!/bin/sh\necho run >> '${count}'\n${options.fail ? "echo 'no namespaces here' >&2; exit 1" : `exec ${REAL_BWRAP} "$@"`}\n`);
  await chmod(path, 0o755);
  return { path, runs: async () => (await readFile(count, "utf8")).split("\n").filter(Boolean).length };
}

test("a passing probe runs once; a changed binary is probed again", { skip: !available && !required && "no bwrap" }, async () => {
  const dir = await tempDir("clawhive-probe-");
  try {
    const bwrap = await countingBwrap(dir);
    const first = await cachedSandboxProbe(dir, { bwrapPath: bwrap.path });
    assert.equal(first.available, true, first.available ? "" : first.reason);
    const again = await cachedSandboxProbe(dir, { bwrapPath: bwrap.path });
    assert.deepEqual(again, first);
    assert.equal(await bwrap.runs(), 1, "the second start believed the first's probe");
    // The binary replaced (a new mtime): probed again.
    await utimes(bwrap.path, new Date(), new Date(Date.now() + 5_000));
    assert.equal((await cachedSandboxProbe(dir, { bwrapPath: bwrap.path })).available, true);
    assert.equal(await bwrap.runs(), 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a failing probe is not remembered, and a forged file for another binary is not believed", async () => {
  const dir = await tempDir("clawhive-probe-");
  try {
    const bwrap = await countingBwrap(dir, { fail: true });
    for (let i = 1; i <= 2; i++) {
      const info = await cachedSandboxProbe(dir, { bwrapPath: bwrap.path });
      assert.equal(info.available, false);
      assert.match(info.available ? "" : info.reason, /failed the probe.*no namespaces here/s);
      assert.equal(await bwrap.runs(), i, "each start probed again");
    }
    // A file vouching for bwrap under another key (another binary's): still probed, still refused.
    await writeFile(join(dir, "bwrap-probe.json"), JSON.stringify({ key: JSON.stringify({ v: 1, bwrap: ["/usr/bin/bwrap"] }), system: [] }));
    assert.equal((await cachedSandboxProbe(dir, { bwrapPath: bwrap.path })).available, false);
    assert.equal(await bwrap.runs(), 3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("no bwrap at the path: not available, and nothing is written", async () => {
  const dir = await tempDir("clawhive-probe-");
  try {
    const info = await cachedSandboxProbe(dir, { bwrapPath: join(dir, "missing-bwrap") });
    assert.equal(info.available, false);
    await assert.rejects(readFile(join(dir, "bwrap-probe.json")));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
