import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { createKvProxy, KV_HOST_FUNCTION_NAMES, kvHostFunctions } from "../../../host-proxies/kv/index.js";
import { bytes, memoryStore, rejectsWith, text } from "./_fixtures.js";

type HostFunction = (args: unknown[]) => Promise<unknown>;

async function functions(t: TestContext): Promise<Record<string, HostFunction>> {
  return kvHostFunctions(createKvProxy(await memoryStore(t), { namespace: "a/p/n", quotaBytes: 100 }));
}

function fn(table: Record<string, HostFunction>, name: string): HostFunction {
  const f = table[name];
  assert.ok(f !== undefined, `no host function ${name}`);
  return f;
}

test("kvHostFunctions: one function per WIT import, under jco's names (delete keeps its name)", async (t) => {
  const table = await functions(t);
  assert.deepEqual(Object.keys(table).sort(), [...KV_HOST_FUNCTION_NAMES].sort());
  assert.deepEqual(KV_HOST_FUNCTION_NAMES, ["get", "set", "delete", "listKeys"]);
});

test("kvHostFunctions: guest-chosen names never reach Object.prototype", async (t) => {
  const table = await functions(t);
  for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty", "list-keys", "delete_", "_delete"]) {
    assert.equal(table[name], undefined, name);
  }
  assert.ok(Object.isFrozen(table));
});

test("kvHostFunctions: every function dispatches to the proxy", async (t) => {
  const table = await functions(t);
  assert.equal(await fn(table, "set")(["k", bytes("v")]), undefined);
  assert.equal(text((await fn(table, "get")(["k"])) as Uint8Array), "v");
  assert.equal(await fn(table, "get")(["missing"]), undefined, "none is undefined, as jco lowers option");
  assert.deepEqual(await fn(table, "listKeys")([undefined]), ["k"]);
  assert.deepEqual(await fn(table, "listKeys")(["x"]), []);
  assert.equal(await fn(table, "delete")(["k"]), true);
  assert.equal(await fn(table, "delete")(["k"]), false);
});

type ArgRow = [description: string, name: string, args: unknown];

// Each bad call beside the good calls above.
const ARG_ROWS: ArgRow[] = [
  ["get with no arguments", "get", []],
  ["get with a number key", "get", [42]],
  ["get with an extra argument", "get", ["k", "extra"]],
  ["get with args not an array", "get", "k"],
  ["get with a null key", "get", [null]],
  ["set with no value", "set", ["k"]],
  ["set with string data", "set", ["k", "text"]],
  ["set with a plain array", "set", ["k", [1, 2, 3]]],
  ["set with an ArrayBuffer", "set", ["k", new ArrayBuffer(2)]],
  ["set with a DataView", "set", ["k", new DataView(new ArrayBuffer(2))]],
  ["delete with an object key", "delete", [{ toString: () => "k" }]],
  ["listKeys with no arguments", "listKeys", []],
  ["listKeys with a number prefix", "listKeys", [1]],
  ["listKeys with a null prefix", "listKeys", [null]],
];

for (const [description, name, args] of ARG_ROWS) {
  test(`kvHostFunctions: invalid-input for ${description}`, async (t) => {
    const table = await functions(t);
    await rejectsWith(fn(table, name)(args as unknown[]), { tag: "invalid-input", message: `kv.${name}` });
  });
}

test("kvHostFunctions: a quota denial passes through as the guest's denied case", async (t) => {
  const table = await functions(t);
  await rejectsWith(fn(table, "set")(["k", new Uint8Array(100)]), { tag: "denied", capability: "kv", reason: "quota-exceeded" });
});
