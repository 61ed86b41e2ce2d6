/**
 * Adversarial table: every row tries to reach outside the mount (or a hidden file) through the
 * real filesystem, and carries a control that must succeed on the same proxy.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { link, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createFsProxy } from "../../../host-proxies/fs/index.js";
import type { FsProxy } from "../../../host-proxies/fs/index.js";
import { bytes, OUTSIDE_SECRET, rejectsWith, scratch, text } from "./_fixtures.js";
import type { Expected, Scratch } from "./_fixtures.js";

interface Row {
  name: string;
  /** Plants the trap; `when: "after"` plants it once the proxy exists. */
  plant: (s: Scratch) => Promise<void>;
  when?: "before" | "after";
  attack: (p: FsProxy, s: Scratch) => Promise<unknown>;
  expected: Expected;
  control: (p: FsProxy) => Promise<void>;
  /** Checks the attack changed nothing outside. */
  unchanged?: (s: Scratch) => Promise<void>;
}

const SYMLINK: Expected = { tag: "denied", reason: "symlink" };
const HARD_LINK: Expected = { tag: "denied", reason: "hard-link" };
const OUTSIDE: Expected = { tag: "denied", reason: "outside-mount" };

const readsReal = async (p: FsProxy): Promise<void> => assert.equal(text(await p.read("/work/real.txt")), "real");
const readsInDir = async (p: FsProxy): Promise<void> => assert.equal(text(await p.read("/work/dir/inner.txt")), "inner");
const secretIntact = async (s: Scratch): Promise<void> =>
  assert.equal(await readFile(join(s.outside, "secret.txt"), "utf8"), OUTSIDE_SECRET);
const outsideHoldsOnlySecret = async (s: Scratch): Promise<void> => {
  assert.deepEqual(await readdir(s.outside), ["secret.txt"]);
  await secretIntact(s);
};

const linkToSecret = (s: Scratch) => symlink(join(s.outside, "secret.txt"), join(s.work, "link"));
const linkToOutsideDir = (s: Scratch) => symlink(s.outside, join(s.work, "dirlink"));

const ROWS: Row[] = [
  { name: "final symlink to an outside file (planted before)", plant: linkToSecret, attack: (p) => p.read("/work/link"), expected: SYMLINK, control: readsReal },
  { name: "final symlink to an outside file (planted after)", plant: linkToSecret, when: "after", attack: (p) => p.read("/work/link"), expected: SYMLINK, control: readsReal },
  { name: "relative final symlink climbing out", plant: (s) => symlink("../outside/secret.txt", join(s.work, "link")), attack: (p) => p.read("/work/link"), expected: SYMLINK, control: readsReal },
  { name: "intermediate symlink to an outside dir (before)", plant: linkToOutsideDir, attack: (p) => p.read("/work/dirlink/secret.txt"), expected: SYMLINK, control: readsInDir },
  { name: "intermediate symlink to an outside dir (after)", plant: linkToOutsideDir, when: "after", attack: (p) => p.read("/work/dirlink/secret.txt"), expected: SYMLINK, control: readsInDir },
  { name: "deep intermediate symlink (after)", plant: (s) => symlink(s.outside, join(s.work, "dir/deeplink")), when: "after", attack: (p) => p.read("/work/dir/deeplink/secret.txt"), expected: SYMLINK, control: readsInDir },
  { name: "symlink to a sensitive file inside the mount", plant: (s) => symlink(".ssh/id_rsa", join(s.work, "innocent.txt")), attack: (p) => p.read("/work/innocent.txt"), expected: SYMLINK, control: readsReal },
  { name: "symlink inside the mount to an inside file (all symlinks refused)", plant: (s) => symlink("real.txt", join(s.work, "alias.txt")), attack: (p) => p.read("/work/alias.txt"), expected: SYMLINK, control: readsReal },
  { name: "write through a final symlink to an outside file", plant: linkToSecret, when: "after", attack: (p) => p.write("/work/link", bytes("pwned")), expected: SYMLINK, control: async (p) => p.write("/work/real2.txt", bytes("x")), unchanged: secretIntact },
  { name: "write through a dangling symlink to a new outside file", plant: (s) => symlink(join(s.outside, "created.txt"), join(s.work, "dangling")), attack: (p) => p.write("/work/dangling", bytes("pwned")), expected: SYMLINK, control: async (p) => p.write("/work/new.txt", bytes("x")), unchanged: outsideHoldsOnlySecret },
  { name: "write into a symlinked outside dir", plant: linkToOutsideDir, when: "after", attack: (p) => p.write("/work/dirlink/created.txt", bytes("pwned")), expected: SYMLINK, control: async (p) => p.write("/work/dir/new.txt", bytes("x")), unchanged: outsideHoldsOnlySecret },
  { name: "overwrite an outside file through a symlinked dir", plant: linkToOutsideDir, attack: (p) => p.write("/work/dirlink/secret.txt", bytes("pwned")), expected: SYMLINK, control: async (p) => p.write("/work/dir/inner.txt", bytes("inner")), unchanged: secretIntact },
  { name: "mkdir under a symlinked outside dir", plant: linkToOutsideDir, attack: (p) => p.mkdir("/work/dirlink/a/b"), expected: SYMLINK, control: (p) => p.mkdir("/work/dir/a/b"), unchanged: outsideHoldsOnlySecret },
  { name: "mkdir on a final symlink to an outside dir", plant: linkToOutsideDir, attack: (p) => p.mkdir("/work/dirlink"), expected: SYMLINK, control: (p) => p.mkdir("/work/dir") },
  { name: "listDir of a symlinked outside dir", plant: linkToOutsideDir, attack: (p) => p.listDir("/work/dirlink"), expected: SYMLINK, control: async (p) => assert.equal((await p.listDir("/work/dir")).length, 1) },
  { name: "stat through a symlinked outside dir", plant: linkToOutsideDir, attack: (p) => p.stat("/work/dirlink/secret.txt"), expected: SYMLINK, control: async (p) => assert.equal((await p.stat("/work/dirlink")).kind, "symlink") },
  { name: "remove through a symlinked outside dir", plant: linkToOutsideDir, attack: (p) => p.remove("/work/dirlink/secret.txt"), expected: SYMLINK, control: (p) => p.remove("/work/dir/inner.txt"), unchanged: secretIntact },
  { name: "read a hard link to an outside file", plant: (s) => link(join(s.outside, "secret.txt"), join(s.work, "hard")), attack: (p) => p.read("/work/hard"), expected: HARD_LINK, control: readsReal },
  { name: "write a hard link to an outside file", plant: (s) => link(join(s.outside, "secret.txt"), join(s.work, "hard")), when: "after", attack: (p) => p.write("/work/hard", bytes("pwned")), expected: HARD_LINK, control: async (p) => p.write("/work/real.txt", bytes("real")), unchanged: secretIntact },
  { name: "'..' to an outside sibling", plant: async () => undefined, attack: (p) => p.read("/work/../outside/secret.txt"), expected: OUTSIDE, control: async (p) => assert.equal(text(await p.read("/work/dir/../real.txt")), "real") },
  { name: "'..' briefly out and back in", plant: async () => undefined, attack: (p) => p.read("/work/../work/real.txt"), expected: OUTSIDE, control: readsReal },
  { name: "the outside file by its absolute host path", plant: async () => undefined, attack: (p, s) => p.read(join(s.outside, "secret.txt")), expected: OUTSIDE, control: readsReal },
  { name: "NUL byte truncation", plant: async () => undefined, attack: (p) => p.read("/work/real.txt\0.png"), expected: { tag: "invalid-input" }, control: readsReal },
  { name: "write of a NUL path creates nothing", plant: async () => undefined, attack: (p) => p.write("/work/a\0b", bytes("x")), expected: { tag: "invalid-input" }, control: async (p) => p.write("/work/ab", bytes("x")) },
];

async function setup(t: TestContext): Promise<Scratch> {
  return scratch(t, { "work/real.txt": "real", "work/dir/inner.txt": "inner", "work/.ssh/id_rsa": "PRIVATE KEY" });
}

for (const row of ROWS) {
  test(`escape: ${row.name}`, async (t) => {
    const s = await setup(t);
    if (row.when !== "after") await row.plant(s);
    const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
    t.after(() => proxy.close());
    if (row.when === "after") await row.plant(s);
    const err = await rejectsWith(row.attack(proxy, s), row.expected);
    assert.ok(!err.message.includes(OUTSIDE_SECRET));
    await row.unchanged?.(s);
    await row.control(proxy);
  });
}

test("escape: remove of a symlink removes the link, never its target", async (t) => {
  const s = await setup(t);
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
  t.after(() => proxy.close());
  await linkToSecret(s);
  await linkToOutsideDir(s);
  await proxy.remove("/work/link");
  await proxy.remove("/work/dirlink");
  await outsideHoldsOnlySecret(s);
  assert.deepEqual((await proxy.listDir("/work")).map((e) => e.name), ["dir", "real.txt"]);
});

function hasMkfifo(): boolean {
  try {
    execFileSync("mkfifo", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

test("escape: a FIFO is refused without blocking; control: a regular file", { skip: !hasMkfifo() && "mkfifo not installed" }, async (t) => {
  const s = await setup(t);
  execFileSync("mkfifo", [join(s.work, "pipe")]);
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
  t.after(() => proxy.close());
  await rejectsWith(proxy.read("/work/pipe"), { tag: "denied", reason: "special-file", capability: "fs.read" });
  // Opening a FIFO for writing with no reader fails (ENXIO) rather than blocking.
  await rejectsWith(proxy.write("/work/pipe", bytes("x")), { tag: "denied", reason: "special-file", capability: "fs.write" });
  assert.equal((await proxy.stat("/work/pipe")).kind, "other");
  await readsReal(proxy);
});

test("escape: sensitive files are denied at every op; control: allowSensitive by path", async (t) => {
  const s = await setup(t);
  await mkdir(join(s.work, "proj"));
  await writeFile(join(s.work, "proj/.env"), "TOKEN=1");
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
  const lifted = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }], { allowSensitive: ["/work/proj/.env"] });
  t.after(() => Promise.all([proxy.close(), lifted.close()]));
  const denied = { tag: "denied", reason: "sensitive-name" } as const;
  await rejectsWith(proxy.read("/work/proj/.env"), { ...denied, capability: "fs.read" });
  await rejectsWith(proxy.stat("/work/proj/.env"), { ...denied, capability: "fs.read" });
  await rejectsWith(proxy.listDir("/work/.ssh"), { ...denied, capability: "fs.read" });
  await rejectsWith(proxy.write("/work/proj/.env", bytes("x")), { ...denied, capability: "fs.write" });
  await rejectsWith(proxy.remove("/work/.ssh/id_rsa"), { ...denied, capability: "fs.write" });
  await rejectsWith(proxy.mkdir("/work/.aws"), { ...denied, capability: "fs.write" });
  assert.equal(text(await lifted.read("/work/proj/.env")), "TOKEN=1");
  await rejectsWith(lifted.read("/work/.ssh/id_rsa"), denied);
});
