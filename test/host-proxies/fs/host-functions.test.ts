import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createFsProxy, FS_HOST_FUNCTION_NAMES, fsHostFunctions } from "../../../host-proxies/fs/index.js";
import type { FsStat, HostFunction } from "../../../host-proxies/fs/index.js";
import { bytes, rejectsWith, scratch, text } from "./_fixtures.js";

async function functions(t: TestContext): Promise<Record<string, HostFunction>> {
  const s = await scratch(t, { "work/f.txt": "hello" });
  const proxy = await createFsProxy([{ guest: "/work", host: s.work, mode: "rw" }]);
  t.after(() => proxy.close());
  return fsHostFunctions(proxy);
}

function fn(table: Record<string, HostFunction>, name: string): HostFunction {
  const f = table[name];
  assert.ok(f !== undefined, `no host function ${name}`);
  return f;
}

test("fsHostFunctions: one function per WIT import, under jco's camelCase names", async (t) => {
  const table = await functions(t);
  assert.deepEqual(Object.keys(table).sort(), [...FS_HOST_FUNCTION_NAMES].sort());
  assert.deepEqual(FS_HOST_FUNCTION_NAMES, ["mounts", "read", "write", "listDir", "stat", "remove", "mkdir", "walk", "search"]);
});

test("fsHostFunctions: guest-chosen names never reach Object.prototype", async (t) => {
  const table = await functions(t);
  for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf", "list-dir"]) {
    assert.equal(table[name], undefined, name);
  }
  assert.ok(Object.isFrozen(table));
});

test("fsHostFunctions: every function dispatches to the proxy", async (t) => {
  const table = await functions(t);
  assert.deepEqual(await fn(table, "mounts")([]), [{ guest: "/work", mode: "rw" }]);
  assert.equal(text((await fn(table, "read")(["/work/f.txt"])) as Uint8Array), "hello");
  assert.equal(await fn(table, "write")(["/work/g.txt", bytes("g")]), undefined);
  await fn(table, "mkdir")(["/work/d/e"]);
  const listing = (await fn(table, "listDir")(["/work"])) as { name: string }[];
  assert.deepEqual(listing.map((e) => e.name), ["d", "f.txt", "g.txt"]);
  const info = (await fn(table, "stat")(["/work/g.txt"])) as FsStat;
  assert.deepEqual([info.kind, info.size, typeof info.modifiedMs], ["file", 1n, "bigint"]);
  await fn(table, "remove")(["/work/g.txt"]);
  await rejectsWith(fn(table, "read")(["/work/g.txt"]), { tag: "not-found" });
  const walked = (await fn(table, "walk")(["/work", {}])) as { entries: { path: string }[] };
  assert.deepEqual(walked.entries.map((e) => e.path), ["/work/f.txt"]);
  const found = (await fn(table, "search")(["/work", { pattern: "hell" }])) as { matches: { path: string; line: number }[] };
  assert.deepEqual(found.matches.map((m) => `${m.path}:${m.line}`), ["/work/f.txt:1"]);
});

type ArgRow = [description: string, name: string, args: unknown];

// Each bad call beside a good one to the same function.
const ARG_ROWS: ArgRow[] = [
  ["read with no arguments", "read", []],
  ["read with a number path", "read", [42]],
  ["read with an extra argument", "read", ["/work/f.txt", "extra"]],
  ["read with args not an array", "read", "/work/f.txt"],
  ["read with a null path", "read", [null]],
  ["write with string data", "write", ["/work/x", "text"]],
  ["write with a plain array", "write", ["/work/x", [1, 2, 3]]],
  ["write with an ArrayBuffer", "write", ["/work/x", new ArrayBuffer(2)]],
  ["write with a DataView", "write", ["/work/x", new DataView(new ArrayBuffer(2))]],
  ["write with a missing data argument", "write", ["/work/x"]],
  ["listDir with an object path", "listDir", [{ toString: () => "/work" }]],
  ["stat with a String object", "stat", [new String("/work")]],
  ["remove with two paths", "remove", ["/work/a", "/work/b"]],
  ["mkdir with no path", "mkdir", []],
  ["mounts with an argument", "mounts", ["/work"]],
  ["walk with no options argument", "walk", ["/work"]],
  ["walk with options not a record", "walk", ["/work", "**/*"]],
  ["walk with a glob list of numbers", "walk", ["/work", { includeGlobs: [1] }]],
  ["walk with a negative cap", "walk", ["/work", { maxEntries: -1 }]],
  ["walk with a cap past its maximum", "walk", ["/work", { maxMillis: 10_000_000 }]],
  ["walk with an unknown kind", "walk", ["/work", { kinds: ["socket"] }]],
  ["search with no pattern", "search", ["/work", {}]],
  ["search with a number pattern", "search", ["/work", { pattern: 1 }]],
  ["search with an invalid regex", "search", ["/work", { pattern: "(" }]],
  ["search with an unknown mode", "search", ["/work", { pattern: "x", mode: "glob" }]],
  ["search with a fractional cap", "search", ["/work", { pattern: "x", maxMatches: 1.5 }]],
  ["search with too much context", "search", ["/work", { pattern: "x", contextAfter: 11 }]],
  ["search with a per-file cap over the read cap", "search", ["/work", { pattern: "x", maxFileBytes: 1e12 }]],
  ["search with too many globs", "search", ["/work", { pattern: "x", excludeGlobs: Array.from({ length: 65 }, () => "a") }]],
];

const GOOD_CALLS: Record<string, unknown[]> = {
  read: ["/work/f.txt"],
  write: ["/work/x", new Uint8Array([1, 2])],
  listDir: ["/work"],
  stat: ["/work"],
  remove: ["/work/f.txt"],
  mkdir: ["/work/newdir"],
  mounts: [],
  walk: ["/work", { includeGlobs: ["*.txt"] }],
  search: ["/work", { pattern: "x" }],
};

for (const [description, name, args] of ARG_ROWS) {
  test(`fsHostFunctions: ${description} is invalid input; control: a well-typed call`, async (t) => {
    const table = await functions(t);
    await rejectsWith(fn(table, name)(args as unknown[]), { tag: "invalid-input" });
    await fn(table, name)(GOOD_CALLS[name] ?? []);
  });
}

test("fsHostFunctions: a Buffer is a Uint8Array and is accepted", async (t) => {
  const table = await functions(t);
  await fn(table, "write")(["/work/b.txt", Buffer.from("buf")]);
  assert.equal(text((await fn(table, "read")(["/work/b.txt"])) as Uint8Array), "buf");
});

test("fsHostFunctions: denials pass through unchanged", async (t) => {
  const table = await functions(t);
  await rejectsWith(fn(table, "read")(["/etc/passwd"]), { tag: "denied", reason: "outside-mount", capability: "fs.read" });
  await rejectsWith(fn(table, "write")(["/work/.env", bytes("x")]), { tag: "denied", reason: "sensitive-name", capability: "fs.write" });
});
