import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalizeFsPath, MAX_GUEST_PATH_BYTES } from "../../../host-proxies/fs/index.js";
import type { FsMount } from "../../../host-proxies/fs/index.js";
import { throwsWith } from "./_fixtures.js";
import type { Expected } from "./_fixtures.js";

// Host paths are never touched by the canonicaliser; they only have to be there.
const MOUNTS: FsMount[] = [
  { guest: "/work", host: "/h/work", mode: "rw" },
  { guest: "/work/ro", host: "/h/ro", mode: "ro" },
  { guest: "/data", host: "/h/data", mode: "ro" },
];

const INVALID: Expected = { tag: "invalid-input" };
const OUTSIDE: Expected = { tag: "denied", reason: "outside-mount", capability: "fs.read" };

/** `/work/` + segments of `segmentBytes` ASCII bytes, padded to exactly `total` bytes. */
function pathOfBytes(total: number, segmentBytes = 200): string {
  let path = "/work";
  while (path.length + 1 + segmentBytes <= total) path += `/${"a".repeat(segmentBytes)}`;
  const rest = total - path.length - 1;
  return rest > 0 ? `${path}/${"b".repeat(rest)}` : path;
}

type Row = [description: string, path: unknown, expected: { guest: string; mount: number } | Expected];

// Each deny row sits beside a control that must canonicalise.
const ROWS: Row[] = [
  ["relative path", "work/a.txt", INVALID],
  ["control: absolute path", "/work/a.txt", { guest: "/work/a.txt", mount: 0 }],
  ["empty path", "", INVALID],
  ["dot-relative path", "./work/a", INVALID],
  ["not a string", 42, INVALID],
  ["NUL byte", "/work/a\0.txt", INVALID],
  ["control: same name without NUL", "/work/a.txt", { guest: "/work/a.txt", mount: 0 }],
  ["newline in a name (log forging)", "/work/a\nb", INVALID],
  ["escape character in a name", "/work/a\u001b[31m", INVALID],
  ["backslash", "/work/a\\b", INVALID],
  ["backslash traversal", "/work/..\\..\\etc\\passwd", INVALID],
  ["control: underscore instead", "/work/a_b", { guest: "/work/a_b", mount: 0 }],
  ["unpaired surrogate", "/work/\uD800x", INVALID],
  ["control: paired surrogates (emoji)", "/work/\uD83D\uDE00", { guest: "/work/\uD83D\uDE00", mount: 0 }],
  ["'..' leaves and comes back (brief escape)", "/work/../work/x", OUTSIDE],
  ["control: the same place directly", "/work/x", { guest: "/work/x", mount: 0 }],
  ["'..' out of the mount root", "/work/..", OUTSIDE],
  ["control: '..' back to the mount root", "/work/a/..", { guest: "/work", mount: 0 }],
  ["'..' twice from one level deep", "/work/a/../../work/b", OUTSIDE],
  ["control: '..' within the mount", "/work/a/../b", { guest: "/work/b", mount: 0 }],
  ["'..' from one mount into another", "/work/../data/x", OUTSIDE],
  ["control: the other mount directly", "/data/x", { guest: "/data/x", mount: 2 }],
  ["'..' deep escape", "/work/a/b/../../../../etc/passwd", OUTSIDE],
  ["control: deep '..' staying inside", "/work/a/b/../../c", { guest: "/work/c", mount: 0 }],
  ["absolute path outside every mount", "/etc/passwd", OUTSIDE],
  ["root itself (no mount at /)", "/", OUTSIDE],
  ["string prefix is not a segment prefix", "/workspace/x", OUTSIDE],
  ["control: a segment starting with the same letters", "/work/space", { guest: "/work/space", mount: 0 }],
  ["case differs from the mount", "/WORK/x", OUTSIDE],
  ["'..' enters a nested ro mount (would bypass ro)", "/work/a/../ro/x", OUTSIDE],
  ["control: the nested mount directly (longest prefix)", "/work/ro/x", { guest: "/work/ro/x", mount: 1 }],
  ["'..' leaves a nested mount into its parent", "/work/ro/../x", OUTSIDE],
  ["control: name that only starts like the nested mount", "/work/rox", { guest: "/work/rox", mount: 0 }],
  ["control: empty and '.' segments collapse", "//work///a/./b/", { guest: "/work/a/b", mount: 0 }],
  ["control: the mount root", "/work", { guest: "/work", mount: 0 }],
  ["path over the byte limit", pathOfBytes(MAX_GUEST_PATH_BYTES + 1), INVALID],
  ["control: path at the byte limit", pathOfBytes(MAX_GUEST_PATH_BYTES), { guest: pathOfBytes(MAX_GUEST_PATH_BYTES), mount: 0 }],
  ["segment over 255 bytes", `/work/${"a".repeat(256)}`, INVALID],
  ["control: segment of 255 bytes", `/work/${"a".repeat(255)}`, { guest: `/work/${"a".repeat(255)}`, mount: 0 }],
  ["multi-byte segment over 255 bytes", `/work/${"é".repeat(128)}`, INVALID],
  ["control: multi-byte segment under 255 bytes", `/work/${"é".repeat(127)}`, { guest: `/work/${"é".repeat(127)}`, mount: 0 }],
];

for (const [description, path, expected] of ROWS) {
  test(`canonicalizeFsPath: ${description}`, () => {
    if ("guest" in expected) {
      const canonical = canonicalizeFsPath(path, MOUNTS);
      assert.equal(canonical.guest, expected.guest);
      assert.equal(canonical.mount.index, expected.mount);
      assert.equal(canonical.mount.spec, MOUNTS[expected.mount]);
      assert.ok(canonical.segments.every((s) => s !== "" && s !== "." && s !== ".."));
    } else {
      throwsWith(() => canonicalizeFsPath(path, MOUNTS), expected);
    }
  });
}

test("canonicalizeFsPath: segments are relative to the mount that matched", () => {
  assert.deepEqual(canonicalizeFsPath("/work/ro/a/b", MOUNTS).segments, ["a", "b"]);
  assert.deepEqual(canonicalizeFsPath("/work/a/b", MOUNTS).segments, ["a", "b"]);
  assert.deepEqual(canonicalizeFsPath("/work", MOUNTS).segments, []);
});

test("canonicalizeFsPath: an outside-mount denial names the capability of the op", () => {
  throwsWith(() => canonicalizeFsPath("/etc/x", MOUNTS, { op: "write" }), { ...OUTSIDE, capability: "fs.write" });
  throwsWith(() => canonicalizeFsPath("/etc/x", MOUNTS, { op: "stat" }), OUTSIDE);
});

test("canonicalizeFsPath: a mount at / holds every path but '..' still cannot leave it", () => {
  const root: FsMount[] = [{ guest: "/", host: "/h", mode: "rw" }];
  assert.equal(canonicalizeFsPath("/etc/x", root).guest, "/etc/x");
  assert.equal(canonicalizeFsPath("/", root).guest, "/");
  throwsWith(() => canonicalizeFsPath("/..", root), OUTSIDE);
  throwsWith(() => canonicalizeFsPath("/a/../../a", root), OUTSIDE);
});

test("canonicalizeFsPath: no mounts means nothing exists", () => {
  throwsWith(() => canonicalizeFsPath("/work/x", []), OUTSIDE);
});

test("canonicalizeFsPath: messages quote the guest input, escaping control characters", () => {
  const err = throwsWith(() => canonicalizeFsPath("/work/a\nforged line", MOUNTS), INVALID);
  assert.ok(!err.message.includes("\n"), err.message);
});
