import assert from "node:assert/strict";
import { mkdir, readFile, rename, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createFsProxy } from "../../../host-proxies/fs/index.js";
import type { FsProxy, FsProxyOptions } from "../../../host-proxies/fs/index.js";
import { InvalidInputError } from "../../../runtime/errors.js";
import { bytes, rejectsWith, scratch, text } from "./_fixtures.js";
import type { Scratch } from "./_fixtures.js";

async function workProxy(t: TestContext, options: FsProxyOptions = {}, files: Record<string, string> = {}): Promise<[FsProxy, Scratch]> {
  const s = await scratch(t, files);
  const ref = join(s.base, "ref");
  await mkdir(ref);
  await writeFile(join(ref, "notes.md"), "reference");
  const proxy = await createFsProxy(
    [
      { guest: "/work", host: s.work, mode: "rw" },
      { guest: "/ref", host: ref, mode: "ro" },
    ],
    options,
  );
  t.after(() => proxy.close());
  return [proxy, s];
}

test("mounts() lists guest paths and modes, never host paths", async (t) => {
  const [proxy] = await workProxy(t);
  assert.deepEqual(await proxy.mounts(), [
    { guest: "/work", mode: "rw" },
    { guest: "/ref", mode: "ro" },
  ]);
});

test("write then read round-trips bytes; write truncates a longer file", async (t) => {
  const [proxy, s] = await workProxy(t);
  await proxy.write("/work/a.txt", bytes("a long first version"));
  await proxy.write("/work/a.txt", bytes("short"));
  assert.equal(text(await proxy.read("/work/a.txt")), "short");
  assert.equal(await readFile(join(s.work, "a.txt"), "utf8"), "short");
  const read = await proxy.read("/work/a.txt");
  assert.equal(read.constructor, Uint8Array);
  assert.equal(read.buffer.byteLength, read.byteLength, "result owns an exact buffer");
});

test("write needs the parent directory; mkdir makes it, recursively and idempotently", async (t) => {
  const [proxy, s] = await workProxy(t);
  await rejectsWith(proxy.write("/work/x/y/z.txt", bytes("z")), { tag: "not-found" });
  await proxy.mkdir("/work/x/y");
  await proxy.mkdir("/work/x/y");
  await proxy.mkdir("/work");
  await proxy.write("/work/x/y/z.txt", bytes("z"));
  assert.equal(await readFile(join(s.work, "x/y/z.txt"), "utf8"), "z");
  await rejectsWith(proxy.mkdir("/work/x/y/z.txt/w"), { tag: "invalid-input" });
});

test("listDir returns sorted entries with kinds and file sizes", async (t) => {
  const [proxy, s] = await workProxy(t, {}, { "work/b.txt": "bbb", "work/a/inner.txt": "i" });
  await symlink("b.txt", join(s.work, "link"));
  assert.deepEqual(await proxy.listDir("/work"), [
    { name: "a", kind: "directory", size: 0n },
    { name: "b.txt", kind: "file", size: 3n },
    { name: "link", kind: "symlink", size: 0n },
  ]);
  assert.deepEqual(await proxy.listDir("/work/a/"), [{ name: "inner.txt", kind: "file", size: 1n }]);
  await rejectsWith(proxy.listDir("/work/b.txt"), { tag: "invalid-input" });
  await rejectsWith(proxy.listDir("/work/none"), { tag: "not-found" });
});

test("listDir hides sensitive and unaddressable names; control: allowSensitive shows them", async (t) => {
  const files = { "work/.env": "K=V", "work/id_rsa": "key", "work/ok.txt": "ok", "work/back\\slash": "x", "work/new\nline": "x" };
  const [proxy] = await workProxy(t, {}, files);
  assert.deepEqual((await proxy.listDir("/work")).map((e) => e.name), ["ok.txt"]);
  const [lifted] = await workProxy(t, { allowSensitive: [".env", "/work/id_rsa"] }, files);
  assert.deepEqual((await lifted.listDir("/work")).map((e) => e.name), [".env", "id_rsa", "ok.txt"]);
});

test("stat reports kind, size and modification time as bigints", async (t) => {
  const [proxy, s] = await workProxy(t, {}, { "work/f.txt": "12345" });
  const info = await proxy.stat("/work/f.txt");
  assert.equal(info.kind, "file");
  assert.equal(info.size, 5n);
  const host = await stat(join(s.work, "f.txt"), { bigint: true });
  assert.equal(info.modifiedMs, host.mtimeMs);
  assert.equal((await proxy.stat("/work")).kind, "directory");
  assert.equal((await proxy.stat("/ref")).kind, "directory");
  await rejectsWith(proxy.stat("/work/missing"), { tag: "not-found" });
});

test("remove deletes files and empty directories, not full ones or mount roots", async (t) => {
  const [proxy, s] = await workProxy(t, {}, { "work/f.txt": "x", "work/full/inner": "x" });
  await mkdir(join(s.work, "empty"));
  await proxy.remove("/work/f.txt");
  await proxy.remove("/work/empty");
  assert.deepEqual((await proxy.listDir("/work")).map((e) => e.name), ["full"]);
  await rejectsWith(proxy.remove("/work/full"), { tag: "invalid-input" });
  await rejectsWith(proxy.remove("/work/f.txt"), { tag: "not-found" });
  await rejectsWith(proxy.remove("/work"), { tag: "denied", reason: "mount-root", capability: "fs.write" });
});

test("an ro mount refuses every change; control: reads of it work", async (t) => {
  const [proxy, s] = await workProxy(t);
  assert.equal(text(await proxy.read("/ref/notes.md")), "reference");
  const denied = { tag: "denied", reason: "read-only-mount", capability: "fs.write" } as const;
  await rejectsWith(proxy.write("/ref/notes.md", bytes("changed")), denied);
  await rejectsWith(proxy.write("/ref/new.md", bytes("new")), denied);
  await rejectsWith(proxy.remove("/ref/notes.md"), denied);
  await rejectsWith(proxy.mkdir("/ref/sub"), denied);
  assert.equal(await readFile(join(s.base, "ref/notes.md"), "utf8"), "reference");
});

test("reads past maxReadBytes are denied size-cap; control: at the cap they succeed", async (t) => {
  const [proxy] = await workProxy(t, { maxReadBytes: 8 }, { "work/eight": "12345678", "work/nine": "123456789" });
  assert.equal(text(await proxy.read("/work/eight")), "12345678");
  await rejectsWith(proxy.read("/work/nine"), { tag: "denied", reason: "size-cap", capability: "fs.read" });
});

test("writes past maxWriteBytes are denied size-cap and touch nothing; control: at the cap", async (t) => {
  const [proxy, s] = await workProxy(t, { maxWriteBytes: 4 });
  await proxy.write("/work/four", bytes("1234"));
  await rejectsWith(proxy.write("/work/five", bytes("12345")), { tag: "denied", reason: "size-cap", capability: "fs.write" });
  await assert.rejects(stat(join(s.work, "five")), { code: "ENOENT" });
});

test("the default read cap is 10 MiB", async (t) => {
  const [proxy, s] = await workProxy(t);
  await writeFile(join(s.work, "big"), Buffer.alloc(10 * 1024 * 1024 + 1));
  await rejectsWith(proxy.read("/work/big"), { tag: "denied", reason: "size-cap" });
  await writeFile(join(s.work, "big"), Buffer.alloc(10 * 1024 * 1024));
  assert.equal((await proxy.read("/work/big")).byteLength, 10 * 1024 * 1024);
});

test("read and write of directories are invalid input", async (t) => {
  const [proxy] = await workProxy(t, {}, { "work/d/f": "x" });
  await rejectsWith(proxy.read("/work/d"), { tag: "invalid-input" });
  await rejectsWith(proxy.read("/work"), { tag: "invalid-input" });
  await rejectsWith(proxy.write("/work/d", bytes("x")), { tag: "invalid-input" });
  await rejectsWith(proxy.write("/work", bytes("x")), { tag: "invalid-input" });
});

test("the mount root is the directory opened at creation, even if the host path is replaced", async (t) => {
  const [proxy, s] = await workProxy(t, {}, { "work/original.txt": "original" });
  await rename(s.work, join(s.base, "moved"));
  await mkdir(s.work);
  await writeFile(join(s.work, "impostor.txt"), "impostor");
  assert.deepEqual((await proxy.listDir("/work")).map((e) => e.name), ["original.txt"]);
  await rejectsWith(proxy.read("/work/impostor.txt"), { tag: "not-found" });
});

test("two proxies with different mounts each see only their own", async (t) => {
  const s = await scratch(t, { "a/only-a.txt": "A", "b/only-b.txt": "B" });
  const a = await createFsProxy([{ guest: "/work", host: join(s.base, "a"), mode: "rw" }]);
  const b = await createFsProxy([{ guest: "/work", host: join(s.base, "b"), mode: "rw" }, { guest: "/b", host: join(s.base, "b"), mode: "ro" }]);
  t.after(() => Promise.all([a.close(), b.close()]));
  assert.equal(text(await a.read("/work/only-a.txt")), "A");
  assert.equal(text(await b.read("/work/only-b.txt")), "B");
  await rejectsWith(a.read("/work/only-b.txt"), { tag: "not-found" });
  await rejectsWith(b.read("/work/only-a.txt"), { tag: "not-found" });
  await rejectsWith(a.read("/b/only-b.txt"), { tag: "denied", reason: "outside-mount" });
  assert.equal(text(await b.read("/b/only-b.txt")), "B");
  await a.write("/work/new.txt", bytes("from a"));
  await rejectsWith(b.read("/work/new.txt"), { tag: "not-found" });
});

test("a closed proxy refuses calls; close waits for calls in flight and is idempotent", async (t) => {
  const [proxy] = await workProxy(t, {}, { "work/f": "x" });
  const inFlight = proxy.read("/work/f");
  const closing = proxy.close();
  assert.equal(text(await inFlight), "x");
  await closing;
  await proxy.close();
  await rejectsWith(proxy.read("/work/f"), { tag: "io" });
});

type BadMount = [description: string, build: (s: Scratch) => unknown, field: string];
const BAD_MOUNTS: BadMount[] = [
  ["missing host directory", (s) => [{ guest: "/work", host: join(s.base, "nope"), mode: "rw" }], "mounts[0].host"],
  ["host path is a file", (s) => [{ guest: "/work", host: join(s.outside, "secret.txt"), mode: "rw" }], "mounts[0].host"],
  ["relative host path", () => [{ guest: "/work", host: "work", mode: "rw" }], "mounts[0].host"],
  ["guest with a trailing slash", (s) => [{ guest: "/work/", host: s.work, mode: "rw" }], "mounts[0].guest"],
  ["guest with '..'", (s) => [{ guest: "/work/..", host: s.work, mode: "rw" }], "mounts[0].guest"],
  ["relative guest", (s) => [{ guest: "work", host: s.work, mode: "rw" }], "mounts[0].guest"],
  ["same guest twice", (s) => [{ guest: "/w", host: s.work, mode: "rw" }, { guest: "/w", host: s.outside, mode: "ro" }], "mounts[1].guest"],
  ["unknown mode", (s) => [{ guest: "/work", host: s.work, mode: "rwx" }], "mounts[0].mode"],
];

for (const [description, build, field] of BAD_MOUNTS) {
  test(`createFsProxy refuses a bad mount: ${description}; control: a good one opens`, async (t) => {
    const s = await scratch(t);
    await assert.rejects(createFsProxy(build(s) as never), (err: unknown) => {
      assert.ok(err instanceof InvalidInputError, String(err));
      assert.equal(err.field, field);
      assert.ok(err.message.startsWith(field), err.message);
      assert.ok(!err.message.includes(s.base), `host path leaked: ${err.message}`);
      return true;
    });
    const good = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
    await good.close();
  });
}

test("createFsProxy refuses bad options; control: good ones", async (t) => {
  const s = await scratch(t);
  const mounts = [{ guest: "/work", host: s.work, mode: "rw" as const }];
  await assert.rejects(createFsProxy(mounts, { maxReadBytes: -1 }), InvalidInputError);
  await assert.rejects(createFsProxy(mounts, { maxWriteBytes: 1.5 }), InvalidInputError);
  await assert.rejects(createFsProxy(mounts, { allowSensitive: ["ssh"] }), /allowSensitive\[0\]/);
  await assert.rejects(createFsProxy(mounts, { allowSensitive: ["/work/../.env"] }), /allowSensitive\[0\]/);
  const good = await createFsProxy(mounts, { maxReadBytes: 0, allowSensitive: [".SSH", "/work/.env"] });
  await good.close();
});

test("a host mount path that is itself a symlink is followed once, at creation", async (t) => {
  const s = await scratch(t, { "work/f.txt": "via link" });
  const link = join(s.base, "work-link");
  await symlink(s.work, link);
  const proxy = await createFsProxy([{ guest: "/work", host: link, mode: "ro" }]);
  t.after(() => proxy.close());
  assert.equal(text(await proxy.read("/work/f.txt")), "via link");
});
