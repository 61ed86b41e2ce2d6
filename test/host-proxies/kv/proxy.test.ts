import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createKvProxy, KV_DENIAL_REASONS } from "../../../host-proxies/kv/index.js";
import { InvalidInputError } from "../../../runtime/errors.js";
import { bytes, DRIVERS, filled, memoryStore, rejectsWith, text } from "./_fixtures.js";

const QUOTA = { tag: "denied", capability: "kv", reason: KV_DENIAL_REASONS.quotaExceeded } as const;

for (const driver of DRIVERS) {
  describe(`kv proxy (${driver} driver)`, () => {
    test("set, get, list and delete round-trip bytes exactly", async (t) => {
      const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 1000 });
      const value = new Uint8Array([0, 1, 127, 128, 255]);
      await kv.set("k", value);
      const got = await kv.get("k");
      assert.deepEqual(got, value);
      assert.equal(Object.getPrototypeOf(got), Uint8Array.prototype, "a plain Uint8Array, not a Buffer");
      assert.deepEqual(await kv.listKeys(), ["k"]);
      assert.equal(await kv.delete("k"), true);
      assert.equal(await kv.get("k"), undefined);
      assert.equal(await kv.delete("k"), false, "a second delete finds nothing");
      assert.deepEqual(await kv.usage(), { bytes: 0, keys: 0, quotaBytes: 1000 });
    });

    test("an empty value is a value, not an absent key", async (t) => {
      const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 10 });
      await kv.set("e", new Uint8Array());
      assert.deepEqual(await kv.get("e"), new Uint8Array());
      assert.deepEqual(await kv.usage(), { bytes: 1, keys: 1, quotaBytes: 10 });
    });

    test("the caller owns what get returns and what set was given", async (t) => {
      const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 100 });
      const value = bytes("abc");
      await kv.set("k", value);
      value[0] = 0x7a;
      const first = await kv.get("k");
      assert.ok(first);
      first[1] = 0x7a;
      assert.equal(text(await kv.get("k")), "abc");
    });

    test("the quota counts key and value bytes, UTF-8", async (t) => {
      const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 1000 });
      await kv.set("é", filled(10)); // 2 + 10
      await kv.set("ab", filled(5)); // 2 + 5
      assert.deepEqual(await kv.usage(), { bytes: 19, keys: 2, quotaBytes: 1000 });
    });

    test("an overwrite counts only the difference", async (t) => {
      const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 11 });
      await kv.set("k", filled(10)); // 11 of 11
      await kv.set("k", filled(10)); // same size again: fits, the old row is not counted twice
      await kv.set("k", filled(4)); // shrinks to 5
      assert.equal((await kv.usage()).bytes, 5);
      await kv.set("k", filled(10)); // grows back to exactly 11
      assert.equal((await kv.usage()).bytes, 11);
      await rejectsWith(kv.set("k", filled(11)), QUOTA);
      assert.equal((await kv.get("k"))?.byteLength, 10, "a refused overwrite leaves the old value");
    });

    test("quota: a set just under and exactly at the quota fits (control), one byte more is denied", async (t) => {
      const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 100 });
      await kv.set("a", filled(49)); // 50
      await kv.set("b", filled(48)); // 49: 99, just under
      await kv.set("c", new Uint8Array()); // 1: 100, exactly at the quota
      const error = await rejectsWith(kv.set("d", new Uint8Array()), { ...QUOTA, message: "101 of its 100 bytes" });
      assert.equal(error.status, 403);
      assert.equal(await kv.get("d"), undefined, "a refused set writes nothing");
      assert.deepEqual(await kv.usage(), { bytes: 100, keys: 3, quotaBytes: 100 });
      await kv.delete("c");
      await kv.set("d", new Uint8Array()); // the freed byte is usable again
    });

    test("a set that does not grow its key is allowed over a lowered quota, so the namespace can shrink", async (t) => {
      const store = await memoryStore(t, driver);
      await createKvProxy(store, { namespace: "a/p/n", quotaBytes: 100 }).set("k", filled(50));
      const lowered = createKvProxy(store, { namespace: "a/p/n", quotaBytes: 20, maxValueBytes: 100 });
      await rejectsWith(lowered.set("k", filled(51)), QUOTA);
      await rejectsWith(lowered.set("x", new Uint8Array()), QUOTA);
      await lowered.set("k", filled(30)); // shrinks, still over 20: allowed
      assert.equal((await lowered.usage()).bytes, 31);
    });

    test("a value past maxValueBytes is denied value-too-large; one at it is stored (control)", async (t) => {
      const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 1000, maxValueBytes: 8 });
      await kv.set("k", filled(8));
      await rejectsWith(kv.set("k", filled(9)), { tag: "denied", capability: "kv", reason: KV_DENIAL_REASONS.valueTooLarge });
      assert.equal((await kv.get("k"))?.byteLength, 8);
    });

    test("namespaces are isolated: same key, separate values, usage and listings", async (t) => {
      const store = await memoryStore(t, driver);
      const a = createKvProxy(store, { namespace: "alice/notes/main", quotaBytes: 20 });
      const b = createKvProxy(store, { namespace: "bob/notes/main", quotaBytes: 20 });
      const c = createKvProxy(store, { namespace: "alice/todo/main", quotaBytes: 20 });
      await a.set("k", bytes("from a"));
      await b.set("k", bytes("from b"));
      assert.equal(text(await a.get("k")), "from a");
      assert.equal(text(await b.get("k")), "from b");
      assert.equal(await c.get("k"), undefined);
      assert.deepEqual(await c.listKeys(), []);
      assert.equal(await c.delete("k"), false, "a delete never reaches another namespace");
      assert.equal(text(await a.get("k")), "from a");
      // a's usage does not count against b's quota
      await a.set("big", filled(10));
      await b.set("big", filled(10));
      assert.deepEqual([(await a.usage()).bytes, (await b.usage()).bytes, (await c.usage()).bytes], [20, 20, 0]);
    });

    test("a namespace that is a prefix of another sees nothing of it", async (t) => {
      const store = await memoryStore(t, driver);
      await createKvProxy(store, { namespace: "a/p/n2", quotaBytes: 20 }).set("k", bytes("x"));
      const short = createKvProxy(store, { namespace: "a/p/n", quotaBytes: 20 });
      assert.deepEqual(await short.listKeys(), []);
      assert.equal(await short.get("k"), undefined);
    });
  });
}

const KEYS = ["a", "a%", "a%b", "a_b", "aXb", "ab", "a*", "a?b", "a[b]", "A", "a\\b", "b", "\u00e9", "e\u0301", "\u{10FFFF}", "a\u{10FFFF}x"];

// [prefix, expected keys]: LIKE and GLOB wildcards, case, escapes and multi-byte prefixes are
// matched literally, as bytes.
const PREFIX_ROWS: Array<[string | undefined, string[]]> = [
  [undefined, [...KEYS].sort(byUtf8)],
  ["", [...KEYS].sort(byUtf8)],
  ["a%", ["a%", "a%b"]],
  ["a_", ["a_b"]],
  ["%", []],
  ["_", []],
  ["a*", ["a*"]],
  ["a?", ["a?b"]],
  ["a[", ["a[b]"]],
  ["a\\", ["a\\b"]],
  ["A", ["A"]],
  ["a", ["a", "a%", "a%b", "a*", "a?b", "aXb", "a[b]", "a\\b", "a_b", "ab", "a\u{10FFFF}x"]],
  ["ab", ["ab"]],
  // NFC and NFD spellings of "é" are two keys: keys are bytes, never normalised.
  ["\u00e9", ["\u00e9"]],
  ["e", ["e\u0301"]],
  ["\u{10FFFF}", ["\u{10FFFF}"]],
  ["a\u{10FFFF}", ["a\u{10FFFF}x"]],
  ["zzz", []],
];

function byUtf8(x: string, y: string): number {
  return Buffer.compare(Buffer.from(x), Buffer.from(y));
}

for (const driver of DRIVERS) {
  test(`listKeys matches prefixes literally, in UTF-8 byte order (${driver} driver)`, async (t) => {
    const kv = createKvProxy(await memoryStore(t, driver), { namespace: "a/p/n", quotaBytes: 10_000 });
    for (const key of KEYS) await kv.set(key, bytes("v"));
    for (const [prefix, expected] of PREFIX_ROWS) {
      assert.deepEqual(await kv.listKeys(prefix), expected, `prefix ${JSON.stringify(prefix)}`);
    }
  });
}

// [description, key]: each refused as invalid-input by every function that takes a key.
const BAD_KEYS: Array<[string, string]> = [
  ["empty", ""],
  ["NUL inside", "a\0b"],
  ["only NUL", "\0"],
  ["513 ASCII bytes", "k".repeat(513)],
  ["257 two-byte characters (514 bytes)", "é".repeat(257)],
  ["a lone high surrogate", "a\uD800"],
  ["a lone low surrogate", "\uDC00b"],
];

// Each beside a key that just fits.
const GOOD_KEYS: Array<[string, string]> = [
  ["512 ASCII bytes", "k".repeat(512)],
  ["256 two-byte characters (512 bytes)", "é".repeat(256)],
  ["a paired surrogate (emoji)", "🙂"],
  ["spaces and slashes", " a/b/../c "],
];

test("bad keys are invalid-input for get, set and delete; keys at the limits are fine (control)", async (t) => {
  const kv = createKvProxy(await memoryStore(t), { namespace: "a/p/n", quotaBytes: 100_000 });
  for (const [description, key] of BAD_KEYS) {
    await t.test(`refused: ${description}`, async () => {
      await rejectsWith(kv.set(key, bytes("v")), { tag: "invalid-input", message: "kv.set: key" });
      await rejectsWith(kv.get(key), { tag: "invalid-input", message: "kv.get: key" });
      await rejectsWith(kv.delete(key), { tag: "invalid-input", message: "kv.delete: key" });
    });
  }
  assert.deepEqual(await kv.usage(), { bytes: 0, keys: 0, quotaBytes: 100_000 });
  for (const [description, key] of GOOD_KEYS) {
    await t.test(`accepted: ${description}`, async () => {
      await kv.set(key, bytes("v"));
      assert.equal(text(await kv.get(key)), "v");
      assert.ok((await kv.listKeys()).includes(key));
    });
  }
});

test("bad prefixes are invalid-input; an empty prefix lists everything (control)", async (t) => {
  const kv = createKvProxy(await memoryStore(t), { namespace: "a/p/n", quotaBytes: 1000 });
  await kv.set("k", bytes("v"));
  await rejectsWith(kv.listKeys("a\0"), { tag: "invalid-input" });
  await rejectsWith(kv.listKeys("k".repeat(513)), { tag: "invalid-input" });
  await rejectsWith(kv.listKeys("\uD800"), { tag: "invalid-input" });
  assert.deepEqual(await kv.listKeys(""), ["k"]);
});

test("maxKeyBytes narrows the key limit", async (t) => {
  const kv = createKvProxy(await memoryStore(t), { namespace: "a/p/n", quotaBytes: 1000, maxKeyBytes: 4 });
  await kv.set("abcd", bytes("v"));
  await rejectsWith(kv.set("abcde", bytes("v")), { tag: "invalid-input" });
});

test("bad options are refused when the proxy is created", async (t) => {
  const store = await memoryStore(t);
  const rows: Array<[string, Parameters<typeof createKvProxy>[1]]> = [
    ["empty namespace", { namespace: "", quotaBytes: 10 }],
    ["zero quota", { namespace: "n", quotaBytes: 0 }],
    ["fractional quota", { namespace: "n", quotaBytes: 1.5 }],
    ["negative quota", { namespace: "n", quotaBytes: -1 }],
    ["key limit past 512", { namespace: "n", quotaBytes: 10, maxKeyBytes: 513 }],
    ["zero value limit", { namespace: "n", quotaBytes: 10, maxValueBytes: 0 }],
  ];
  for (const [description, options] of rows) {
    assert.throws(() => createKvProxy(store, options), InvalidInputError, description);
  }
  assert.doesNotThrow(() => createKvProxy(store, { namespace: "n", quotaBytes: 1 }));
});

test("a store failure reaches the guest as io, without the store's location", async (t) => {
  const store = await memoryStore(t);
  const kv = createKvProxy(store, { namespace: "a/p/n", quotaBytes: 100 });
  await store.execute("DROP TABLE kv_entries");
  const error = await rejectsWith(kv.get("k"), { tag: "io", message: "kv.get: the store failed (store_failed)" });
  assert.ok(error.cause !== undefined, "the operator keeps the cause");
  assert.doesNotMatch(error.hostError.val as string, /kv_entries|memory/);
});
