import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { mkdirWithin } from "../../../runtime/plugins/work-folders.js";
import { tempDir } from "../../helpers/runtime.js";

test("mkdirWithin makes the missing folders below its base, and leaves those that are there", async () => {
  const base = await tempDir("clawhive-work-");
  try {
    await mkdir(join(base, "out"));
    await mkdirWithin(base, "out/interfaces/deep");
    await mkdirWithin(base, "out/interfaces/deep");
    await mkdirWithin(base, "./wit/deps/");
    await mkdirWithin(base, ".");
    assert.ok((await stat(join(base, "out", "interfaces", "deep"))).isDirectory());
    assert.ok((await stat(join(base, "wit", "deps"))).isDirectory());
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test("mkdirWithin on a base that was removed fails and makes nothing again (a leaving build child's folder)", async () => {
  const parent = await tempDir("clawhive-work-");
  const base = join(parent, "clawhive-build-x", "job-y");
  try {
    await mkdir(base, { recursive: true });
    await rm(join(parent, "clawhive-build-x"), { recursive: true });
    await assert.rejects(mkdirWithin(base, "out"), { code: "ENOENT" });
    await assert.rejects(mkdirWithin(base, "out/interfaces"), { code: "ENOENT" });
    assert.equal(existsSync(join(parent, "clawhive-build-x")), false);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test("mkdirWithin refuses a path that climbs out of its base, and makes nothing", async () => {
  const parent = await tempDir("clawhive-work-");
  const base = join(parent, "base");
  try {
    await mkdir(base);
    for (const path of ["../outside", "out/../../outside", "..\\outside"]) {
      await assert.rejects(mkdirWithin(base, path), /leaves/, path);
    }
    assert.equal(existsSync(join(parent, "outside")), false);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
