/**
 * Swap races: a worker thread keeps swapping a path component between a real entry and a
 * symlink to outside while the proxy reads and writes through it. A check-then-open proxy
 * (lstat every component, then open the host path string) loses this race within a few hundred
 * iterations; the handle walk must never return or touch outside content.
 */
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { Worker } from "node:worker_threads";
import { createFsProxy } from "../../../host-proxies/fs/index.js";
import type { FsProxy } from "../../../host-proxies/fs/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { bytes, OUTSIDE_SECRET, scratch, text } from "./_fixtures.js";

const ITERATIONS = 2000;
const READERS = 4;

// CommonJS, run by the worker with `eval: true`. Stops when the main thread sets flag[0].
const SWAPPER = `
const { workerData, parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const flag = new Int32Array(workerData.flag);
const { real, parked, link, linkParked, mode } = workerData;
// The proxy's mkdir may legitimately create \`real\` while it is parked: clear it and go on.
function mv(from, to) {
  for (let attempt = 0; ; attempt++) {
    try {
      return fs.renameSync(from, to);
    } catch (err) {
      const stray = err.code === "EISDIR" || err.code === "ENOTEMPTY" || err.code === "EEXIST";
      if (!stray || attempt > 1000) throw err;
      try { fs.rmSync(to, { recursive: true, force: true }); } catch {}
    }
  }
}
let swaps = 0;
while (Atomics.load(flag, 0) === 0) {
  try {
    if (mode === "dir") {
      mv(real, parked);
      mv(linkParked, real);
      mv(real, linkParked);
      mv(parked, real);
    } else {
      fs.symlinkSync(link, parked);
      fs.renameSync(parked, real);
      fs.writeFileSync(linkParked, "inside");
      fs.renameSync(linkParked, real);
    }
    swaps++;
  } catch (err) {
    parentPort.postMessage({ error: String(err) });
    break;
  }
}
parentPort.postMessage({ swaps });
`;

interface SwapperData {
  real: string;
  parked: string;
  link: string;
  linkParked: string;
  mode: "dir" | "file";
}

/** Runs `body` while the swapper runs; returns how many swaps it made. */
async function whileSwapping(data: SwapperData, body: () => Promise<void>): Promise<number> {
  const flag = new SharedArrayBuffer(4);
  const worker = new Worker(SWAPPER, { eval: true, workerData: { ...data, flag } });
  const done = new Promise<{ swaps?: number; error?: string }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  try {
    await body();
  } finally {
    Atomics.store(new Int32Array(flag), 0, 1);
  }
  const result = await done;
  await worker.terminate();
  assert.equal(result.error, undefined, result.error);
  return result.swaps ?? 0;
}

interface Tally {
  inside: number;
  refused: number;
  leaked: number;
}

async function hammer(proxy: FsProxy, path: string): Promise<Tally> {
  const tally: Tally = { inside: 0, refused: 0, leaked: 0 };
  const reader = async (): Promise<void> => {
    for (let i = 0; i < ITERATIONS / READERS; i++) {
      try {
        const got = text(await proxy.read(path));
        if (got === "inside") tally.inside++;
        else tally.leaked++;
      } catch (err) {
        assert.ok(err instanceof HostProxyError, String(err));
        assert.ok(!err.message.includes(OUTSIDE_SECRET));
        tally.refused++;
      }
    }
  };
  await Promise.all(Array.from({ length: READERS }, reader));
  return tally;
}

async function raceSetup(t: TestContext) {
  const s = await scratch(t, { "work/d/f": "inside", "outside/f": OUTSIDE_SECRET });
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
  t.after(() => proxy.close());
  return { s, proxy };
}

test("race: an intermediate directory swapped for a symlink to outside never redirects a read", async (t) => {
  const { s, proxy } = await raceSetup(t);
  await symlink(s.outside, join(s.work, "d-link"));
  const data: SwapperData = { real: join(s.work, "d"), parked: join(s.work, "d-real"), link: s.outside, linkParked: join(s.work, "d-link"), mode: "dir" };
  let tally: Tally = { inside: 0, refused: 0, leaked: 0 };
  const swaps = await whileSwapping(data, async () => {
    tally = await hammer(proxy, "/work/d/f");
  });
  t.diagnostic(`swaps=${swaps} inside=${tally.inside} refused=${tally.refused}`);
  assert.equal(tally.leaked, 0, "a read returned content from outside the mount");
  assert.equal(tally.inside + tally.refused, ITERATIONS);
  assert.ok(swaps > 0, "the swapper never ran");
});

test("race: a final file swapped for a symlink to outside never redirects a read", async (t) => {
  const { s, proxy } = await raceSetup(t);
  const data: SwapperData = { real: join(s.work, "d/f"), parked: join(s.work, "d/f-link"), link: join(s.outside, "f"), linkParked: join(s.work, "d/f-file"), mode: "file" };
  let tally: Tally = { inside: 0, refused: 0, leaked: 0 };
  const swaps = await whileSwapping(data, async () => {
    tally = await hammer(proxy, "/work/d/f");
  });
  t.diagnostic(`swaps=${swaps} inside=${tally.inside} refused=${tally.refused}`);
  assert.equal(tally.leaked, 0, "a read returned content from outside the mount");
  assert.ok(swaps > 0, "the swapper never ran");
});

test("race: writes and mkdirs through a swapped directory never land outside", async (t) => {
  const { s, proxy } = await raceSetup(t);
  await symlink(s.outside, join(s.work, "d-link"));
  await mkdir(join(s.work, "d", "sub"));
  await writeFile(join(s.outside, "keep"), "x");
  const data: SwapperData = { real: join(s.work, "d"), parked: join(s.work, "d-real"), link: s.outside, linkParked: join(s.work, "d-link"), mode: "dir" };
  const swaps = await whileSwapping(data, async () => {
    for (let i = 0; i < ITERATIONS / 4; i++) {
      await Promise.allSettled([
        proxy.write(`/work/d/w${i % 8}.txt`, bytes("written")),
        proxy.mkdir(`/work/d/m${i % 8}/x`),
        proxy.write("/work/d/f", bytes("inside")),
        proxy.remove(`/work/d/w${(i + 4) % 8}.txt`),
      ]);
    }
  });
  t.diagnostic(`swaps=${swaps}`);
  assert.deepEqual((await readdir(s.outside)).sort(), ["f", "keep", "secret.txt"]);
  assert.equal(await readFile(join(s.outside, "f"), "utf8"), OUTSIDE_SECRET);
  // Control: the swapper stops after a whole cycle, so the real directory is back and writable.
  await proxy.write("/work/d/f", bytes("inside"));
  assert.equal(text(await proxy.read("/work/d/f")), "inside");
});
