/**
 * Host paths never leave the proxy: not in a message, not in the guest's `host-error`, not in a
 * `cause`. Every failing call here is worded in guest paths only.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { link, symlink } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createFsProxy } from "../../../host-proxies/fs/index.js";
import type { FsProxy } from "../../../host-proxies/fs/index.js";
import { toHostProxyError } from "../../../host-proxies/fs/os-errors.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { bytes, scratch } from "./_fixtures.js";

function assertNoHostPath(err: unknown, hostPaths: readonly string[], label: string): void {
  assert.ok(err instanceof HostProxyError, `${label}: expected a HostProxyError, got ${String(err)}`);
  const surfaces = [err.message, JSON.stringify(err.hostError), String(err.stack), String(err.cause)];
  for (const surface of surfaces) {
    for (const host of hostPaths) assert.ok(!surface.includes(host), `${label}: host path in ${surface}`);
    assert.ok(!surface.includes("/proc/self/fd"), `${label}: proc path in ${surface}`);
  }
  assert.equal(err.cause, undefined, `${label}: a cause travels with the error`);
}

const FAILING_CALLS: [label: string, call: (p: FsProxy) => Promise<unknown>][] = [
  ["read missing", (p) => p.read("/work/missing.txt")],
  ["read under a file", (p) => p.read("/work/file.txt/x")],
  ["read a directory", (p) => p.read("/work/dir")],
  ["read a symlink", (p) => p.read("/work/link")],
  ["read through a symlinked dir", (p) => p.read("/work/dirlink/secret.txt")],
  ["read a hard link", (p) => p.read("/work/hard")],
  ["read past the cap", (p) => p.read("/work/big")],
  ["read sensitive", (p) => p.read("/work/.env")],
  ["read outside", (p) => p.read("/etc/passwd")],
  ["read '..' escape", (p) => p.read("/work/../outside/secret.txt")],
  ["read a FIFO", (p) => p.read("/work/pipe")],
  ["write into a missing dir", (p) => p.write("/work/nodir/x", bytes("x"))],
  ["write a directory", (p) => p.write("/work/dir", bytes("x"))],
  ["write a symlink", (p) => p.write("/work/link", bytes("x"))],
  ["write a hard link", (p) => p.write("/work/hard", bytes("x"))],
  ["write ro", (p) => p.write("/ref/x", bytes("x"))],
  ["write past the cap", (p) => p.write("/work/x", new Uint8Array(64))],
  ["write a FIFO", (p) => p.write("/work/pipe", bytes("x"))],
  ["listDir missing", (p) => p.listDir("/work/missing")],
  ["listDir a file", (p) => p.listDir("/work/file.txt")],
  ["listDir a symlinked dir", (p) => p.listDir("/work/dirlink")],
  ["stat missing", (p) => p.stat("/work/dir/missing")],
  ["stat through a symlink", (p) => p.stat("/work/dirlink/x")],
  ["remove missing", (p) => p.remove("/work/missing")],
  ["remove a full dir", (p) => p.remove("/work/dir")],
  ["remove a mount root", (p) => p.remove("/work")],
  ["mkdir over a file", (p) => p.mkdir("/work/file.txt/sub")],
  ["mkdir through a symlink", (p) => p.mkdir("/work/dirlink/sub")],
  ["invalid path", (p) => p.read("work/relative")],
];

function makeFifo(path: string): boolean {
  try {
    execFileSync("mkfifo", [path], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

test("no failing call mentions a host path", async (t) => {
  const s = await scratch(t, { "work/file.txt": "f", "work/dir/inner": "i", "work/.env": "K=V", "work/big": "0123456789", "ref/r": "r" });
  await symlink(join(s.outside, "secret.txt"), join(s.work, "link"));
  await symlink(s.outside, join(s.work, "dirlink"));
  await link(join(s.outside, "secret.txt"), join(s.work, "hard"));
  const fifo = makeFifo(join(s.work, "pipe"));
  const proxy = await createFsProxy(
    [
      { guest: "/work", host: s.work, mode: "rw" },
      { guest: "/ref", host: join(s.base, "ref"), mode: "ro" },
    ],
    { maxReadBytes: 8, maxWriteBytes: 8 },
  );
  t.after(() => proxy.close());
  for (const [label, call] of FAILING_CALLS.filter(([l]) => fifo || !l.includes("FIFO"))) {
    let caught: unknown;
    await call(proxy).catch((err: unknown) => (caught = err));
    assert.notEqual(caught, undefined, `${label}: expected a failure`);
    assertNoHostPath(caught, [s.base, s.work, s.outside], label);
  }
  // Control: the same proxy serves an ordinary call.
  await proxy.write("/work/ok.txt", bytes("ok"));
});

test("no failing call after close mentions a host path", async (t) => {
  const s = await scratch(t);
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
  await proxy.close();
  await proxy.read("/work/x").catch((err: unknown) => assertNoHostPath(err, [s.base], "closed"));
});

const ERRNO_CODES = ["ENOENT", "ELOOP", "ENOTDIR", "EISDIR", "EEXIST", "ENOTEMPTY", "ENAMETOOLONG", "EACCES", "EPERM", "ENOSPC", "EROFS", "EIO", "EXDEV", undefined];

for (const code of ERRNO_CODES) {
  test(`OS error ${code ?? "(no code)"} is worded in guest terms only`, () => {
    const host = "/srv/secret-host-dir/work/a.txt";
    const raw = Object.assign(new Error(`${code ?? "boom"}: failed, open '${host}'`), { code, path: host });
    const err = toHostProxyError(raw, "read", "/work/a.txt");
    assertNoHostPath(err, ["/srv/secret-host-dir"], String(code));
    assert.ok(err.message.startsWith("/work/a.txt: "), err.message);
  });
}

test("a HostProxyError passes through the OS-error mapping untouched", () => {
  const original = HostProxyError.notFound("/work/x: no such file or directory");
  assert.equal(toHostProxyError(original, "read", "/work/x"), original);
});
