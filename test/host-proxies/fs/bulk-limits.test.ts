/**
 * The caps of `walk` and `search`, each hit beside a control just inside it, and hostile
 * patterns: a catastrophic regex ends at the job's deadline with a clear error, its worker
 * terminated and the descriptors it held closed, and the next search on the proxy still works.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createFsProxy } from "../../../host-proxies/fs/index.js";
import type { FsProxy } from "../../../host-proxies/fs/index.js";
import { rejectsWith, scratch } from "./_fixtures.js";

async function tree(t: TestContext, files: Record<string, string | Buffer>, options: { maxReadBytes?: number } = {}): Promise<FsProxy> {
  const s = await scratch(t);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(join(s.work, rel, ".."), { recursive: true });
    await writeFile(join(s.work, rel), content);
  }
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "ro" }], options);
  t.after(() => proxy.close());
  return proxy;
}

const many = (n: number, text = "hit\n"): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, text]));

test("bulk limits: a file over the per-file cap is skipped and counted; control: one at the cap is searched", async (t) => {
  // big.txt is 108 bytes, one over the read cap.
  const proxy = await tree(t, { "big.txt": "x".repeat(100) + "\nneedle\n", "small.txt": "needle\n" }, { maxReadBytes: 107 });
  const capped = await proxy.search("/work", { pattern: "needle" });
  assert.deepEqual(capped.matches.map((m) => m.path), ["/work/small.txt"]);
  assert.equal(capped.skipped.tooLarge, 1);
  // A search may lower its per-file cap, never raise it past the read cap.
  const lowered = await proxy.search("/work", { pattern: "needle", maxFileBytes: 6 });
  assert.equal(lowered.skipped.tooLarge, 2);
  await rejectsWith(proxy.search("/work", { pattern: "needle", maxFileBytes: 108 }), { tag: "invalid-input", message: "maxFileBytes" });
  // Control: at the cap, the file is read.
  const atCap = await tree(t, { "big.txt": "x".repeat(100) + "\nneedle\n" }, { maxReadBytes: 108 });
  assert.equal((await atCap.search("/work", { pattern: "needle" })).matches.length, 1);
});

const CAPS: Array<[name: string, files: Record<string, string>, options: Record<string, unknown>, stopped: string, control: Record<string, unknown>]> = [
  ["max-matches", many(1, "hit\n".repeat(5)), { maxMatches: 4 }, "max-matches", { maxMatches: 5 }],
  ["max-matches across files", many(5), { maxMatches: 4 }, "max-matches", { maxMatches: 5 }],
  ["max-files", many(5), { maxFiles: 4 }, "max-files", { maxFiles: 5 }],
  ["max-bytes", many(5), { maxBytes: 16 }, "max-bytes", { maxBytes: 20 }],
  ["max-entries", many(5), { maxEntries: 4 }, "max-entries", { maxEntries: 5 }],
];
for (const [name, files, options, stopped, control] of CAPS) {
  test(`bulk limits: search ${name} truncates and says so; control: just inside it does not`, async (t) => {
    const proxy = await tree(t, files);
    const hit = await proxy.search("/work", { pattern: "hit", ...options });
    assert.equal(hit.truncated, true);
    assert.equal(hit.stopped, stopped);
    const inside = await proxy.search("/work", { pattern: "hit", ...control });
    assert.equal(inside.truncated, false);
    assert.equal(inside.matches.length, 5);
  });
}

test("bulk limits: the per-file match cap stops a file, not the search", async (t) => {
  const proxy = await tree(t, { "a.txt": "hit\nhit\nhit\n", "b.txt": "hit\nhit\n" });
  const result = await proxy.search("/work", { pattern: "hit", maxMatchesPerFile: 1 });
  assert.deepEqual(result.matches.map((m) => `${m.path}:${m.line}`), ["/work/a.txt:1", "/work/b.txt:1"]);
  assert.equal(result.truncated, false);
});

test("bulk limits: walk results and depth caps; controls inside them", async (t) => {
  const proxy = await tree(t, { ...many(3), "d1/d2/d3/deep.txt": "x" });
  const results = await proxy.walk("/work", { maxResults: 2 });
  assert.deepEqual([results.entries.length, results.truncated, results.stopped], [2, true, "max-results"]);
  assert.equal((await proxy.walk("/work", { maxResults: 4 })).truncated, false);
  const shallow = await proxy.walk("/work", { maxDepth: 3 });
  assert.ok(!shallow.entries.some((e) => e.path.endsWith("deep.txt")));
  assert.equal(shallow.skipped.tooDeep, 1);
  assert.equal(shallow.truncated, false);
  assert.ok((await proxy.walk("/work", { maxDepth: 4 })).entries.some((e) => e.path === "/work/d1/d2/d3/deep.txt"));
});

test("bulk limits: binary files are skipped and counted, never decoded; control: text beside them", async (t) => {
  const proxy = await tree(t, {
    "nul.bin": Buffer.from("needle\0needle\n"),
    "latin1.txt": Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xe9, 0x0a]),
    "ok.txt": "needle\n",
  });
  for (const mode of ["literal", "regex"] as const) {
    const result = await proxy.search("/work", { pattern: mode === "literal" ? "needle" : "need.e", mode });
    assert.deepEqual(result.matches.map((m) => m.path), ["/work/ok.txt"], mode);
    assert.equal(result.skipped.binary, 2, mode);
  }
});

test("bulk limits: a catastrophic regex ends at the deadline with a clear error; the next search works", async (t) => {
  const proxy = await tree(t, { "evil.txt": `${"a".repeat(40)}!\n`, "ok.txt": "fine\n" });
  const fds = (): number => readdirSync("/proc/self/fd").length;
  const before = fds();
  const err = await rejectsWith(proxy.search("/work", { pattern: "(a+)+$", maxMillis: 200 }), { tag: "invalid-input" });
  assert.match(err.message, /fs\.search: stopped after \d+ ms without an answer .*backtracks catastrophically/);
  // The killed worker's directory descriptors were closed (a fresh worker opens its own later).
  assert.ok(fds() <= before, `descriptors left open: ${fds()} > ${before}`);
  // Control: the same shape of pattern, linear on this text, and a plain search after the kill.
  assert.equal((await proxy.search("/work", { pattern: "(b+)+$" })).matches.length, 0);
  assert.deepEqual((await proxy.search("/work", { pattern: "fine" })).matches.map((m) => m.path), ["/work/ok.txt"]);
});

test("bulk limits: an over-long pattern and too many globs are refused before any work; control: at the limits", async (t) => {
  const proxy = await tree(t, many(1));
  await rejectsWith(proxy.search("/work", { pattern: "a".repeat(4097) }), { tag: "invalid-input", message: "longer than 4096" });
  assert.equal((await proxy.search("/work", { pattern: "a".repeat(4096) })).matches.length, 0);
  await rejectsWith(proxy.walk("/work", { includeGlobs: Array.from({ length: 65 }, () => "*") }), { tag: "invalid-input", message: "at most 64" });
  assert.equal((await proxy.walk("/work", { includeGlobs: Array.from({ length: 64 }, () => "*") })).entries.length, 1);
});

test("bulk limits: an answer past the output cap stops at max-output; control: the same search with short lines", async (t) => {
  const proxy = await tree(t, { "wide.txt": `${"x".repeat(4000)}\n`.repeat(300) });
  const wide = await proxy.search("/work", { pattern: "x", maxLineLength: 4096, contextAfter: 10, maxMatches: 1000 });
  assert.equal(wide.stopped, "max-output");
  assert.ok(wide.matches.length > 0 && wide.matches.length < 300);
  assert.equal(wide.filesMatched, 1);
  const narrow = await proxy.search("/work", { pattern: "x", maxLineLength: 16, contextAfter: 10, maxMatches: 1000 });
  assert.deepEqual([narrow.truncated, narrow.matches.length], [false, 300]);
});

test("bulk limits: a walk whose paths pass the output cap stops at max-output; control: half of them", async (t) => {
  // 2,600 files whose guest paths are ~3,270 characters each: 8.5 M characters in all.
  const s = await scratch(t);
  const deep = join(s.work, ...Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(250, "d")));
  await mkdir(deep, { recursive: true });
  for (let i = 0; i < 2600; i++) await writeFile(join(deep, `${i % 2 === 0 ? "a" : "b"}${i}`.padEnd(250, "f")), "");
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "ro" }]);
  t.after(() => proxy.close());
  const all = await proxy.walk("/work", { maxResults: 5000 });
  assert.deepEqual([all.truncated, all.stopped], [true, "max-output"]);
  assert.ok(all.entries.length > 2000 && all.entries.length < 2600, `${all.entries.length}`);
  const half = await proxy.walk("/work", { maxResults: 5000, includeGlobs: ["a*"] });
  assert.deepEqual([half.truncated, half.entries.length], [false, 1300]);
});

test("bulk limits: a guest may lower the output cap, never raise it; control: the cap at its most", async (t) => {
  const proxy = await tree(t, many(5, "hit\n"));
  // Each match is its path (16 characters) and its line (3).
  const lowered = await proxy.search("/work", { pattern: "hit", maxOutputChars: 4 * 19 });
  assert.deepEqual([lowered.stopped, lowered.matches.length, lowered.filesMatched], ["max-output", 4, 4]);
  assert.equal((await proxy.search("/work", { pattern: "hit", maxOutputChars: 5 * 19 })).truncated, false);
  const walk = await proxy.walk("/work", { maxOutputChars: 2 * 16 });
  assert.deepEqual([walk.stopped, walk.entries.length], ["max-output", 2]);
  assert.equal((await proxy.walk("/work", { maxOutputChars: 5 * 16 })).truncated, false);
  await rejectsWith(proxy.search("/work", { pattern: "hit", maxOutputChars: 8 * 1024 * 1024 + 1 }), { tag: "invalid-input", message: "maxOutputChars" });
  await rejectsWith(proxy.walk("/work", { maxOutputChars: 0 }), { tag: "invalid-input", message: "maxOutputChars" });
  assert.equal((await proxy.walk("/work", { maxOutputChars: 8 * 1024 * 1024 })).entries.length, 5);
});
