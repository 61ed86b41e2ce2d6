/**
 * Hostile .tgz packages: decompression bombs, declared sizes, paths and links that leave the
 * package. Each refusal sits beside a package that reads fine, and inflating never holds the
 * event loop.
 */
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { ClawhiveError } from "../../../runtime/errors.js";
import { sha256 } from "../../../runtime/plugins/artifact.js";
import { readPackage } from "../../../runtime/plugins/install/index.js";
import type { ReadPackageOptions } from "../../../runtime/plugins/install/index.js";
import { unpackTarball } from "../../../runtime/plugins/install/tarball.js";
import { defaultBuildCacheDir } from "../../../runtime/plugins/locations.js";
import { echoComponent } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";
import { pax, tar, tgz, zeroMembers } from "./_tar.js";
import type { TarEntry } from "./_tar.js";

/** A component preamble is all reading a package checks (verification comes later, at install). */
const WASM = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]);
const echo = { sha256: sha256(WASM) };
let root: string;
let files: TarEntry[];

before(async () => {
  root = await tempDir("clawhive-bombs-");
  const { sha256: _declared, ...manifest } = (await echoComponent()).manifest;
  files = [
    { path: "plugin.json", data: JSON.stringify(manifest) },
    { path: "plugin.wasm", data: WASM },
  ];
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

let serial = 0;
async function read(bytes: Uint8Array, options: Partial<ReadPackageOptions> = {}) {
  const file = join(root, `p${++serial}.tgz`);
  await writeFile(file, bytes);
  return readPackage(file, { cacheDir: defaultBuildCacheDir(), ...options });
}

async function refused(bytes: Uint8Array, code: string, message: RegExp, options: Partial<ReadPackageOptions> = {}): Promise<void> {
  await assert.rejects(read(bytes, options), (e: ClawhiveError) => {
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  });
}

const MIB = 1 << 20;
const junk = (count: number): TarEntry[] => Array.from({ length: count }, (_, i) => ({ path: `junk/${i}.bin`, data: Buffer.alloc(MIB) }));

test("bombs: a control package reads; the same files under bombs are refused by their inflated size", async () => {
  const control = await read(tgz(files));
  assert.equal(control.sha256, echo.sha256);
  // npm pack's layout, extra files and a folder entry are all fine.
  const npm = await read(tgz([{ path: "package/", flag: "5" }, ...files.map((f) => ({ ...f, path: `package/${f.path}` })), { path: "package/README.md", data: "# echo" }]));
  assert.equal(npm.sha256, echo.sha256);
  const small = { unpack: { maxUnpackedBytes: 8 * MIB } };
  const cases: Array<[string, Uint8Array, string, RegExp]> = [
    ["the first inflated chunk already past a tiny cap", tgz([...files, ...junk(1)]), "package_too_large", /inflates to more than 4096 bytes/],
    ["junk that inflates past the cap", tgz([...files, ...junk(12)]), "package_too_large", /junk\/\d+\.bin declares/],
    ["an entry that declares 8 GiB", tgz([{ path: "huge.bin", size: 8 * 1024 ** 3 }, ...files], { end: false }), "package_too_large", /huge\.bin declares 8589934592 bytes/],
    ["a GNU sparse entry with a huge size", tgz([{ path: "sparse", flag: "S", size: 2 ** 40 }], { end: false }), "package_too_large", /sparse declares/],
    ["a pax size record that lies", tgz([pax({ size: String(2 ** 50) }), { path: "x.bin" }], { end: false }), "package_too_large", /x\.bin declares/],
    ["plugin.json larger than a manifest may be", tgz([{ path: "plugin.json", data: Buffer.alloc(65 * 1024, 0x20) }, files[1]!]), "package_too_large", /plugin\.json is 66560 bytes/],
    ["a pax record as large as a file", tgz([{ path: "PaxHeader", flag: "x", data: Buffer.alloc(MIB, 0x20) }, ...files]), "package_too_large", /PaxHeader/],
  ];
  for (const [name, bytes, code, message] of cases) await refused(bytes, code, message, name.includes("tiny") ? { unpack: { maxUnpackedBytes: 4096 } } : small);
  // Control under the same small cap: the real files fit.
  assert.equal((await read(tgz(files), small)).sha256, echo.sha256);
});

test("bombs: a gzip bomb of zeros is read only up to the end-of-archive marker", async () => {
  // 64 MiB of zeros (~64 KiB gzipped): two zero blocks end the archive at its first KiB.
  await refused(zeroMembers(64), "package_invalid", /missing plugin\.json/);
  // A real package followed by 256 MiB of zeros: installs, and the zeros are never inflated
  // (they would blow the 68 MiB cap).
  const trailing = Buffer.concat([tgz(files), zeroMembers(256)]);
  assert.equal((await read(trailing)).sha256, echo.sha256);
  // Control: the same zeros inside the archive, as an entry's data, are refused by its size.
  const inside = Buffer.concat([gzipSync(tar([...files, { path: "zeros.bin", size: 256 * MIB }], { end: false })), zeroMembers(256)]);
  await refused(inside, "package_too_large", /zeros\.bin declares 268435456 bytes/);
});

test("bombs: paths outside the package, links and special files are refused; regular files beside them are the control", async () => {
  const cases: Array<[string, TarEntry[], RegExp]> = [
    ["a ../ path", [{ path: "../plugin.json", data: "{}" }], /\.\.\/plugin\.json: a path outside the package/],
    ["an absolute path", [{ path: "/etc/plugin.json", data: "{}" }], /a path outside the package/],
    ["a Windows ..\\ path", [{ path: "a\\..\\..\\x", data: "x" }], /a path outside the package/],
    ["a drive letter", [{ path: "C:evil", data: "x" }], /a path outside the package/],
    ["a pax path that climbs (the ustar name looks harmless)", [pax({ path: "../../.bashrc" }), { path: "harmless.txt", data: "x" }], /\.\.\/\.\.\/\.bashrc: a path outside/],
    ["a GNU long name that climbs", [{ path: "././@LongLink", flag: "L", data: `${"../".repeat(40)}etc/x\0` }, { path: "short", data: "x" }], /a path outside the package/],
    ["plugin.wasm as a symlink", [files[0]!, { path: "plugin.wasm", flag: "2", linkpath: "/etc/passwd" }], /plugin\.wasm: a link \(SymbolicLink\)/],
    ["a symlink elsewhere", [...files, { path: "docs", flag: "2", linkpath: "/" }], /docs: a link \(SymbolicLink\)/],
    ["a hard link", [...files, { path: "copy", flag: "1", linkpath: "plugin.wasm" }], /copy: a link \(Link\)/],
    ["a character device", [...files, { path: "tty", flag: "3" }], /tty: not a regular file \(type "3"\)/],
    ["a fifo", [...files, { path: "pipe", flag: "6" }], /pipe: not a regular file/],
    ["plugin.json as a folder", [{ path: "plugin.json", flag: "5" }, files[1]!], /plugin\.json: not a regular file \(Directory\)/],
    ["a second plugin.json", [...files, { path: "package/plugin.json", data: "{}" }], /a second plugin\.json/],
  ];
  for (const [name, entries, message] of cases) {
    await assert.rejects(read(tgz(entries)), (e: ClawhiveError) => {
      assert.equal(e.code, "package_invalid", `${name}: ${e.message}`);
      assert.match(e.message, message, name);
      return true;
    });
  }
  // 5000 links make an error of 20 lines and a count, not of 5000 lines.
  const links = Array.from({ length: 5000 }, (_, i): TarEntry => ({ path: `l${i}`, flag: "2", linkpath: "/" }));
  await assert.rejects(read(tgz([...files, ...links])), (e: ClawhiveError) => e.code === "package_invalid" && /… and 4980 more$/.test(e.message) && e.message.split("\n").length === 22);
  // Control: a nested folder with a dotted (not dot-dot) name and a long pax path inside the package.
  const fine = await read(tgz([...files, { path: "docs/..hidden/a..b.md", data: "x" }, pax({ path: `docs/${"n".repeat(150)}.md` }), { path: "long", data: "x" }]));
  assert.equal(fine.sha256, echo.sha256);
});

test("bombs: archives that are not tar, or break off, are invalid input; a well-formed one is the control", async () => {
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ["gzip inside gzip", gzipSync(tgz([...files, ...junk(1)])), /not a readable \.tgz: not a tar header/],
    ["a bad header checksum", tgz([{ ...files[0]!, badChecksum: true }, files[1]!]), /checksum mismatch/],
    ["truncated inside an entry", gzipSync(tar([...files, ...junk(1)]).subarray(0, 8192)), /truncated/],
    ["a corrupt gzip stream", Buffer.concat([tgz(files).subarray(0, 20), Buffer.alloc(200, 0xff)]), /not a readable \.tgz/],
    ["a malformed pax record", tgz([{ path: "PaxHeader", flag: "x", data: "99 path=x\n" }, ...files]), /malformed pax/],
  ];
  for (const [name, bytes, message] of cases) {
    await assert.rejects(read(bytes), (e: ClawhiveError) => {
      assert.equal(e.code, "invalid_input", `${name}: ${e.message}`);
      assert.match(e.message, message, name);
      return true;
    });
  }
  // Control: no end-of-archive blocks at all is still a whole archive (GNU tar reads it too).
  assert.equal((await read(tgz(files, { end: false }))).sha256, echo.sha256);
});

test("bombs: inflating yields to the event loop and stops at its deadline", async () => {
  const bomb = tgz(junk(48));
  const options = { wanted: new Map([["plugin.json", 1024]]), maxUnpackedBytes: 1 << 30, origin: "bomb" };
  // Other work goes on while it inflates: a synchronous inflate would let no tick through.
  let ticks = 0;
  let ticking = true;
  const tick = () => {
    ticks++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const done = await unpackTarball(bomb, { ...options, timeoutMs: 60_000 });
  ticking = false;
  assert.deepEqual([done.files.size, done.problems], [0, []]);
  assert.ok(ticks > 48, `only ${ticks} event-loop turns while 48 MiB were inflated`);
  // The deadline: 48 MiB are not inflated within 1 ms; a cancelled unpack stops too.
  await assert.rejects(unpackTarball(bomb, { ...options, timeoutMs: 1 }), (e: ClawhiveError) => e.code === "package_timeout");
  await assert.rejects(unpackTarball(bomb, { ...options, timeoutMs: 60_000, signal: AbortSignal.abort() }), (e: ClawhiveError) => e.code === "package_cancelled");
});
