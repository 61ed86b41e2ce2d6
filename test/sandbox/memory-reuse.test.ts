/**
 * Memories reused across instances (runtime/sandbox/memory-recycler.ts), end to end: a typed
 * component made from a core module that reads and writes raw memory, installed and called as
 * tools in runs on one worker. What one run's instance wrote is never seen by the next run's
 * instance, though that instance was handed the very memory the first one used.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { componentEmbed, componentNew } from "@bytecodealliance/jco";
import type { Runtime } from "../../runtime/index.js";
import { watToWasm } from "../helpers/extism-probe.js";
import { writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

const WIT = `package test:raw-memory;
world root {
  /// Writes a 32-bit value at a byte address of the instance's memory.
  export poke: func(addr: u32, value: u32);
  /// Reads the 32-bit value at a byte address of the instance's memory.
  export peek: func(addr: u32) -> u32;
}
`;
// Two pages, a data segment at 16: a fresh memory reads 42 there and 0 everywhere else.
const CORE = `(module
  (memory (export "memory") 2)
  (data (i32.const 16) "\\2a")
  (func (export "poke") (param i32 i32) local.get 0 local.get 1 i32.store)
  (func (export "peek") (param i32) (result i32) local.get 0 i32.load))`;
const FAR = 65536 + 4096;

let runtime: Runtime;
let dispose: () => Promise<void>;
let agent: string;

before(async () => {
  // One worker: every instance of the suite is made, and its memory given back, in the same place.
  ({ runtime, dispose } = await testRuntime({ sandbox: { workers: 1, poolSize: 0 } }));
  const embedded = await componentEmbed({ binary: await watToWasm(CORE), witSource: WIT, world: "root" } as Parameters<typeof componentEmbed>[0]);
  const bytes = new Uint8Array(await componentNew(embedded, []));
  const manifest = { name: "raw-memory", version: "0.1.0", description: "reads and writes raw memory", publisher: "clawhive-tests", contract: "typed", capabilities: [], tools: { poke: { risk: "safe" }, peek: { risk: "safe" } } };
  await runtime.installPlugin(await writePackage(await tempDir(), "raw-memory", manifest, bytes));
  agent = await defineTestAgent(runtime, "raw-memory-caller", { plugins: ["raw-memory"] });
});
after(() => dispose());

async function inRun<T>(work: (call: (tool: string, input: unknown) => Promise<unknown>) => Promise<T>): Promise<T> {
  const run = await runtime.startRun({ agent, task: "raw memory" });
  try {
    return await work(async (tool, input) => {
      const outcome = (await run.callTool(`raw-memory.${tool}`, input)) as { status: string; output?: unknown };
      assert.equal(outcome.status, "ok", JSON.stringify(outcome));
      return outcome.output;
    });
  } finally {
    await run.end();
  }
}

async function reused(): Promise<number> {
  const [worker] = await runtime.sandbox.probeWorkers();
  return worker?.memories?.reused ?? 0;
}

test("control: within one run the instance reads back what it wrote", async () => {
  const read = await inRun(async (call) => {
    await call("poke", { addr: FAR, value: 0xfeed });
    await call("poke", { addr: 16, value: 7 });
    return [await call("peek", { addr: FAR }), await call("peek", { addr: 16 })];
  });
  assert.deepEqual(read, [0xfeed, 7]);
});

test("the next run's instance, on the memory the last one used, sees a new memory: zeros and its data segment", async () => {
  for (let round = 0; round < 3; round++) {
    const before = await reused();
    const read = await inRun(async (call) => {
      const seen = [await call("peek", { addr: FAR }), await call("peek", { addr: 16 })];
      await call("poke", { addr: FAR, value: 0xbad + round });
      await call("poke", { addr: 16, value: 9 });
      return seen;
    });
    assert.deepEqual(read, [0, 42], `round ${round}`);
    // The memory was one a gone instance had used: otherwise this would prove nothing.
    assert.ok((await reused()) > before, `round ${round}: the memory was not reused`);
  }
});
