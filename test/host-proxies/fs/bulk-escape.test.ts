/**
 * Adversarial table for `walk` and `search`, the same traps as escape.test.ts: every row tries
 * to reach outside the mount, or a hidden file, through a one-call walk of the real filesystem,
 * and carries a control that must succeed on the same proxy. A row either expects a refusal of
 * the start, or a result that never holds the secret and counts what it passed over.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { link, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createFsProxy } from "../../../host-proxies/fs/index.js";
import type { FsProxy, FsSearchResult, FsSkipCounts, FsWalkResult } from "../../../host-proxies/fs/index.js";
import { OUTSIDE_SECRET, rejectsWith, scratch } from "./_fixtures.js";
import type { Expected, Scratch } from "./_fixtures.js";

const SECRET = OUTSIDE_SECRET;
const HIDDEN = "HIDDEN-SECRET";

interface Row {
  name: string;
  plant?: (s: Scratch) => Promise<void>;
  when?: "before" | "after";
  attack: (p: FsProxy, s: Scratch) => Promise<FsWalkResult | FsSearchResult>;
  /** A refusal of the start, or what the result must have skipped. */
  expected: Expected | { skipped: Partial<FsSkipCounts> };
  control: (p: FsProxy) => Promise<void>;
}

const find = (p: FsProxy, path: string, pattern = SECRET) => p.search(path, { pattern });
const findsReal = async (p: FsProxy): Promise<void> => {
  const r = await p.search("/work", { pattern: "real" });
  assert.deepEqual(r.matches.map((m) => m.path), ["/work/real.txt"]);
};
const walksReal = async (p: FsProxy): Promise<void> => {
  const r = await p.walk("/work", {});
  assert.ok(r.entries.some((e) => e.path === "/work/dir/inner.txt"));
};
const SYMLINK: Expected = { tag: "denied", reason: "symlink" };
const OUTSIDE: Expected = { tag: "denied", reason: "outside-mount" };

const linkToSecret = (s: Scratch) => symlink(join(s.outside, "secret.txt"), join(s.work, "link"));
const linkToOutsideDir = (s: Scratch) => symlink(s.outside, join(s.work, "dirlink"));

const ROWS: Row[] = [
  { name: "search: '..' to an outside sibling", attack: (p) => find(p, "/work/../outside"), expected: OUTSIDE, control: async (p) => assert.equal((await find(p, "/work/dir/..", "real")).matches.length, 1) },
  { name: "walk: '..' briefly out and back in", attack: (p) => p.walk("/work/../work", {}), expected: OUTSIDE, control: walksReal },
  { name: "search: the outside dir by its absolute host path", attack: (p, s) => find(p, s.outside), expected: OUTSIDE, control: findsReal },
  { name: "search: a percent-encoded '..' is a name, never decoded", attack: (p) => find(p, "/work/%2e%2e/outside"), expected: { tag: "not-found" }, control: findsReal },
  { name: "search: a unicode lookalike of '..' is a name", attack: (p) => find(p, "/work/\u2024\u2024/outside"), expected: { tag: "not-found" }, control: findsReal },
  { name: "search: a fullwidth solidus is a name, not a separator", attack: (p) => find(p, "/work/..\uff0foutside"), expected: { tag: "not-found" }, control: findsReal },
  { name: "search: a backslash traversal is refused", attack: (p) => find(p, "/work/..\\outside"), expected: { tag: "invalid-input" }, control: findsReal },
  { name: "walk: a NUL byte is refused", attack: (p) => p.walk("/work\0/outside", {}), expected: { tag: "invalid-input" }, control: walksReal },
  { name: "search: a relative start is refused", attack: (p) => find(p, "work"), expected: { tag: "invalid-input" }, control: findsReal },
  { name: "search: a symlink to an outside file is not followed (before)", plant: linkToSecret, attack: (p) => find(p, "/work"), expected: { skipped: { symlink: 1 } }, control: findsReal },
  { name: "search: a symlink to an outside file is not followed (after)", plant: linkToSecret, when: "after", attack: (p) => find(p, "/work"), expected: { skipped: { symlink: 1 } }, control: findsReal },
  { name: "search: a relative symlink climbing out", plant: (s) => symlink("../outside/secret.txt", join(s.work, "dir", "up")), attack: (p) => find(p, "/work"), expected: { skipped: { symlink: 1 } }, control: findsReal },
  { name: "search: a symlinked outside dir is not entered", plant: linkToOutsideDir, attack: (p) => find(p, "/work"), expected: { skipped: { symlink: 1 } }, control: findsReal },
  { name: "walk: a symlinked outside dir is not entered (after)", plant: linkToOutsideDir, when: "after", attack: (p) => p.walk("/work", { kinds: ["file", "directory"] }), expected: { skipped: { symlink: 1 } }, control: walksReal },
  { name: "search: a symlink as the start is refused", plant: linkToOutsideDir, attack: (p) => find(p, "/work/dirlink"), expected: SYMLINK, control: findsReal },
  { name: "walk: a symlink as the start is refused", plant: linkToOutsideDir, attack: (p) => p.walk("/work/dirlink", {}), expected: SYMLINK, control: walksReal },
  { name: "search: a start through a symlinked dir is refused", plant: linkToOutsideDir, attack: (p) => find(p, "/work/dirlink/secret.txt"), expected: SYMLINK, control: findsReal },
  { name: "search: a symlink loop ends", plant: async (s) => { await symlink("b", join(s.work, "a")); await symlink("a", join(s.work, "b")); }, attack: (p) => find(p, "/work"), expected: { skipped: { symlink: 2 } }, control: findsReal },
  { name: "search: a symlink to an inside dir is not entered either", plant: (s) => symlink("dir", join(s.work, "alias")), attack: (p) => find(p, "/work", "inner"), expected: { skipped: { symlink: 1 } }, control: findsReal },
  { name: "search: a symlink to a sensitive file inside the mount", plant: (s) => symlink(".ssh/id_rsa", join(s.work, "innocent.txt")), attack: (p) => find(p, "/work", HIDDEN), expected: { skipped: { symlink: 1, sensitive: 2 } }, control: findsReal },
  { name: "search: a hard link to an outside file is not read", plant: (s) => link(join(s.outside, "secret.txt"), join(s.work, "hard")), attack: (p) => find(p, "/work"), expected: { skipped: { hardLink: 1 } }, control: findsReal },
  { name: "search: a hard link as the start is refused", plant: (s) => link(join(s.outside, "secret.txt"), join(s.work, "hard")), attack: (p) => find(p, "/work/hard"), expected: { tag: "denied", reason: "hard-link" }, control: findsReal },
  { name: "search: sensitive names are never searched", attack: (p) => find(p, "/work", HIDDEN), expected: { skipped: { sensitive: 2 } }, control: findsReal },
  { name: "walk: sensitive names are never listed", attack: (p) => p.walk("/work", { kinds: ["file", "directory", "symlink", "other"] }), expected: { skipped: { sensitive: 2 } }, control: walksReal },
  { name: "search: a sensitive start is refused", attack: (p) => find(p, "/work/.ssh", HIDDEN), expected: { tag: "denied", reason: "sensitive-name" }, control: findsReal },
  { name: "search: a sensitive start spelt in upper case is refused", attack: (p) => find(p, "/work/.SSH", HIDDEN), expected: { tag: "denied", reason: "sensitive-name" }, control: findsReal },
  { name: "search: a sensitive name deeper down is hidden", plant: async (s) => { await mkdir(join(s.work, "dir", "deep")); await writeFile(join(s.work, "dir", "deep", "server.key"), HIDDEN); }, attack: (p) => find(p, "/work/dir", HIDDEN), expected: { skipped: { sensitive: 1 } }, control: findsReal },
  { name: "search: a name no guest path can hold is skipped", plant: (s) => writeFile(join(s.work, "bad\\name.txt"), HIDDEN), attack: (p) => find(p, "/work", HIDDEN), expected: { skipped: { unaddressable: 1 } }, control: findsReal },
];

async function setup(t: Parameters<typeof scratch>[0]): Promise<Scratch> {
  return scratch(t, { "work/real.txt": "real", "work/dir/inner.txt": "inner", "work/.ssh/id_rsa": HIDDEN, "work/.env": HIDDEN });
}

function text(result: FsWalkResult | FsSearchResult): string {
  return JSON.stringify(result, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v));
}

for (const row of ROWS) {
  test(`bulk escape: ${row.name}`, async (t) => {
    const s = await setup(t);
    if (row.when !== "after") await row.plant?.(s);
    const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "ro" }]);
    t.after(() => proxy.close());
    if (row.when === "after") await row.plant?.(s);
    if ("tag" in row.expected) {
      const err = await rejectsWith(row.attack(proxy, s), row.expected);
      // (A message may quote the path the guest typed, a host path included, and nothing else.)
      assert.ok(!err.message.includes(SECRET) && !err.message.includes("/proc/self/fd"));
    } else {
      const result = await row.attack(proxy, s);
      const shown = text(result);
      assert.ok(!shown.includes(SECRET) && !shown.includes(HIDDEN), `a secret reached the result: ${shown}`);
      assert.ok(!shown.includes(s.base), "a host path reached the result");
      assert.ok(!shown.includes(".ssh") && !shown.includes(".env"), "a sensitive name reached the result");
      for (const [reason, count] of Object.entries(row.expected.skipped)) {
        assert.equal(result.skipped[reason as keyof FsSkipCounts], count, `skipped.${reason} in ${shown}`);
      }
    }
    await row.control(proxy);
  });
}

test("bulk escape: every layer must lift a sensitive name; control: lifted by all, it is searched", async (t) => {
  const s = await setup(t);
  const layers = { lifts: [[".env"], []] as string[][] };
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "ro" }], { allowSensitive: [".env"], bulkLifts: () => layers.lifts });
  t.after(() => proxy.close());
  // The proxy's own grant lifts .env, the task layer does not: a search must not see it.
  const narrowed = await find(proxy, "/work", HIDDEN);
  assert.deepEqual(narrowed.matches, []);
  assert.equal(narrowed.skipped.sensitive, 2);
  layers.lifts = [[".env"], [".env"]];
  const lifted = await find(proxy, "/work", HIDDEN);
  assert.deepEqual(lifted.matches.map((m) => m.path), ["/work/.env"]);
  // .ssh is lifted by no one: still hidden.
  assert.equal(lifted.skipped.sensitive, 1);
});

test("bulk escape: a nested mount is walked through its own root, never through the outer host dir", async (t) => {
  const s = await scratch(t, { "work/real.txt": "real", "work/sub/decoy.txt": "DECOY", "other/inner.txt": "NESTED" });
  const proxy = await createFsProxy([
    { guest: "/work", host: s.work, mode: "ro" },
    { guest: "/work/sub", host: join(s.base, "other"), mode: "ro" },
  ]);
  t.after(() => proxy.close());
  const walked = await proxy.walk("/work", {});
  assert.deepEqual(walked.entries.map((e) => e.path), ["/work/real.txt", "/work/sub/inner.txt"]);
  const decoy = await find(proxy, "/work", "DECOY");
  assert.deepEqual(decoy.matches, []);
  // Control: what read says of the same guest path is what the walk found.
  assert.equal(Buffer.from(await proxy.read("/work/sub/inner.txt")).toString(), "NESTED");
  assert.deepEqual((await find(proxy, "/work", "NESTED")).matches.map((m) => m.path), ["/work/sub/inner.txt"]);
});

function hasMkfifo(): boolean {
  try {
    execFileSync("mkfifo", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

test("bulk escape: a FIFO is skipped without blocking, and refused as a start; control: a regular file", { skip: !hasMkfifo() && "mkfifo not installed" }, async (t) => {
  const s = await setup(t);
  execFileSync("mkfifo", [join(s.work, "pipe")]);
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "ro" }]);
  t.after(() => proxy.close());
  assert.equal((await find(proxy, "/work")).skipped.special, 1);
  await rejectsWith(find(proxy, "/work/pipe"), { tag: "denied", reason: "special-file", capability: "fs.read" });
  await findsReal(proxy);
});
