/**
 * A core module's one defined memory rewritten into an import the worker supplies
 * (runtime/plugins/memory-import.ts): the rewritten module instantiates with a supplied memory
 * as the original did with its own, and every module the rewrite does not fit is left alone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { capMemory } from "../../runtime/plugins/memory-cap.js";
import { importMemory, RECYCLED_MEMORY_MODULE, RECYCLED_MEMORY_NAME } from "../../runtime/plugins/memory-import.js";
import { watToWasm } from "../helpers/extism-probe.js";

const PEEK = `(func (export "peek") (param i32) (result i32) local.get 0 i32.load)`;

async function module(body: string): Promise<Uint8Array> {
  return watToWasm(`(module ${body})`);
}

function supplied(memory: WebAssembly.Memory): WebAssembly.Imports {
  return { [RECYCLED_MEMORY_MODULE]: { [RECYCLED_MEMORY_NAME]: memory } };
}

test("a defined memory becomes an import of the same limits, and the data segments land in the supplied memory", async () => {
  const bytes = await module(`(import "env" "f" (func)) (memory (export "memory") 2 10) (data (i32.const 16) "\\2a") ${PEEK}`);
  const rewritten = importMemory(bytes);
  assert.ok(rewritten);
  assert.deepEqual(rewritten.limits, { initial: 2, maximum: 10 });
  const compiled = new WebAssembly.Module(rewritten.bytes as Uint8Array<ArrayBuffer>);
  assert.deepEqual(WebAssembly.Module.imports(compiled).map((i) => `${i.module}/${i.name}:${i.kind}`), ["env/f:function", `${RECYCLED_MEMORY_MODULE}/${RECYCLED_MEMORY_NAME}:memory`]);
  const memory = new WebAssembly.Memory({ initial: 2, maximum: 10 });
  const instance = new WebAssembly.Instance(compiled, { env: { f: () => undefined }, ...supplied(memory) });
  assert.equal((instance.exports.peek as (at: number) => number)(16), 42);
  // The module still exports its memory: the glue reads and writes it as before.
  assert.equal(instance.exports.memory, memory);
});

test("a module with no import section gets one, ahead of its functions", async () => {
  const rewritten = importMemory(await module(`(memory 1) ${PEEK}`));
  assert.ok(rewritten);
  assert.deepEqual(rewritten.limits, { initial: 1, maximum: undefined });
  const compiled = new WebAssembly.Module(rewritten.bytes as Uint8Array<ArrayBuffer>);
  const instance = new WebAssembly.Instance(compiled, supplied(new WebAssembly.Memory({ initial: 1 })));
  assert.equal((instance.exports.peek as (at: number) => number)(0), 0);
});

test("the memory cap carries over: the import's maximum is the capped one", async () => {
  const capped = capMemory(await module(`(memory 1) ${PEEK}`), 4);
  assert.deepEqual(importMemory(capped)?.limits, { initial: 1, maximum: 4 });
  const compiled = new WebAssembly.Module(importMemory(capped)!.bytes as Uint8Array<ArrayBuffer>);
  // A larger memory than the cap does not link: the cap still holds.
  assert.throws(() => new WebAssembly.Instance(compiled, supplied(new WebAssembly.Memory({ initial: 1, maximum: 8 }))), WebAssembly.LinkError);
  assert.ok(new WebAssembly.Instance(compiled, supplied(new WebAssembly.Memory({ initial: 1, maximum: 4 }))));
});

/** `(memory 1 1)` marked shared (flags 0x03): the WAT parser here does not take `shared`. */
async function sharedMemoryModule(): Promise<Uint8Array> {
  const bytes = await module(`(memory 1 1)`);
  const at = bytes.findIndex((b, i) => b === 5 && bytes[i + 1] === 4 && bytes[i + 2] === 1 && bytes[i + 3] === 0x01);
  assert.ok(at > 0);
  const shared = bytes.slice();
  shared[at + 3] = 0x03;
  return shared;
}

const leftAlone: Array<{ name: string; bytes: () => Promise<Uint8Array> }> = [
  { name: "no memory", bytes: () => module(`(func (export "f"))`) },
  { name: "an imported memory", bytes: () => module(`(import "env" "memory" (memory 1)) ${PEEK}`) },
  { name: "a shared memory", bytes: sharedMemoryModule },
  { name: "a module that already imports from the reserved name", bytes: () => module(`(import "${RECYCLED_MEMORY_MODULE}" "other" (func)) (memory 1) ${PEEK}`) },
];
for (const c of leftAlone) {
  test(`left alone: ${c.name}`, async () => {
    assert.equal(importMemory(await c.bytes()), undefined);
  });
}

test("not a core module: a clear error", () => {
  assert.throws(() => importMemory(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8])), { code: "invalid_module", message: /memory import: not a WebAssembly core module/ });
});
