import assert from "node:assert/strict";
import { lutimes, mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sweepStaleWork } from "../../runtime/plugins/stale-work.js";

test("a killed build's work folders are swept once stale; a live one, other names, files and symlinks (controls) are not", async () => {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-sweep-test-"));
  const outside = await mkdtemp(join(tmpdir(), "clawhive-sweep-target-"));
  try {
    const old = new Date(Date.now() - 7 * 60 * 60 * 1000);
    const folder = async (name: string, when: Date) => {
      await mkdir(join(dir, name, "out"), { recursive: true });
      await writeFile(join(dir, name, "out", "component.wasm"), "x");
      await utimes(join(dir, name), when, when);
    };
    await folder("clawhive-build-killed", old);
    await folder("clawhive-compile-killed", old);
    await folder("clawhive-build-running", new Date());
    await folder("someone-elses-old", old);
    await writeFile(join(dir, "clawhive-build-a-file"), "x");
    await utimes(join(dir, "clawhive-build-a-file"), old, old);
    await writeFile(join(outside, "keep.txt"), "keep");
    await symlink(outside, join(dir, "clawhive-build-a-link"));
    await lutimes(join(dir, "clawhive-build-a-link"), old, old);

    assert.equal(await sweepStaleWork(dir), 2);
    assert.deepEqual((await readdir(dir)).sort(), ["clawhive-build-a-file", "clawhive-build-a-link", "clawhive-build-running", "someone-elses-old"]);
    assert.deepEqual(await readdir(outside), ["keep.txt"], "a symlink's target is never followed");
    assert.equal(await sweepStaleWork(dir), 0, "nothing stale is left");
    assert.equal(await sweepStaleWork(join(dir, "no-such-folder")), 0, "a temp folder that cannot be read sweeps nothing");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
});
