import assert from "node:assert/strict";
import { describe, it } from "node:test";
import createPlugin from "@extism/extism";
import { InvalidInputError } from "../../runtime/errors.js";
import { readImportTypes } from "../../bench/peers/_import_types.js";
import { compileEchoPlugin, ECHO_INPUT, measureExtism, measureRaw, percentile, timeLoop, toSample } from "../../bench/peers/index.js";

async function wat(text: string, features: Record<string, boolean> = {}): Promise<Uint8Array> {
  const wabt = await (await import("wabt")).default();
  const parsed = wabt.parseWat("fixture.wat", text, features);
  try {
    return parsed.toBinary({}).buffer;
  } finally {
    parsed.destroy();
  }
}

describe("percentile", () => {
  const table: [number[], number, number][] = [
    [[], 50, Number.NaN],
    [[7], 0, 7],
    [[7], 95, 7],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 51, 3],
    [[1, 2, 3, 4], 100, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 95, 95],
  ];
  for (const [values, p, expected] of table) {
    it(`p${p} of ${values.length} values is ${expected}`, () => {
      assert.deepEqual(percentile(values, p), expected);
    });
  }
  it("refuses p outside 0..100", () => {
    assert.throws(() => percentile([1], 101), RangeError);
  });
  it("toSample sorts numerically", () => {
    const sample = toSample([10, 9, 100, 1]);
    assert.deepEqual(sample.durationsUs, [1, 9, 10, 100]);
    assert.equal(sample.p50, 9);
    assert.equal(sample.mean, 30);
  });
});

describe("timeLoop", () => {
  it("runs warmup plus iterations, times only iterations, and runs after on each", async () => {
    let runs = 0;
    let afters = 0;
    const sample = await timeLoop(() => ++runs, { iterations: 20, warmup: 3, after: () => afters++ });
    assert.equal(runs, 23);
    assert.equal(afters, 23);
    assert.equal(sample.durationsUs.length, 20);
  });
  it("awaits a promise inside the timed span", async () => {
    // The promise settles only after 2 ms of the clock have passed inside a later macrotask, so a
    // span that awaited it is at least that long whatever the machine's load; a timer's delay is
    // counted from the event loop's cached time and may fire early, so it is no bound.
    const later = () => new Promise<void>((resolve) => setImmediate(() => {
      const start = performance.now();
      while (performance.now() - start < 2) {}
      resolve();
    }));
    const sample = await timeLoop(later, { iterations: 3, warmup: 0 });
    assert.ok(sample.min >= 2000, `min ${sample.min} µs`);
  });
});

describe("extism echo plugin", () => {
  const inputs: [string, string][] = [
    ["empty", ""],
    ["1 byte", "a"],
    ["7 bytes", "abcdefg"],
    ["8 bytes", "abcdefgh"],
    ["9 bytes", "abcdefghi"],
    ["the bench input", ECHO_INPUT],
    ["multi-byte UTF-8", '{"text":"héllo wörld ✓"}'],
    ["past one page (memory.grow)", "x".repeat(70_000 + 3)],
  ];
  for (const [name, input] of inputs) {
    it(`echoes ${name}`, async () => {
      const plugin = await createPlugin({ wasm: [{ module: await compileEchoPlugin() }] }, { useWasi: false });
      try {
        assert.equal((await plugin.call("call", input))?.text() ?? "", input);
      } finally {
        await plugin.close();
      }
    });
  }
  it("describes one tool as JSON", async () => {
    const plugin = await createPlugin({ wasm: [{ module: await compileEchoPlugin() }] }, { useWasi: false });
    try {
      const described = (await plugin.call("describe"))?.json();
      assert.deepEqual(described, {
        tools: [{ name: "echo", description: "Returns its input unchanged.", inputSchema: { type: "object" } }],
      });
    } finally {
      await plugin.close();
    }
  });
  it("measureExtism returns both samples", async () => {
    const figures = await measureExtism({ instance: { iterations: 20, warmup: 2 }, call: { iterations: 50, warmup: 5 } });
    assert.equal(figures.instanceReady.durationsUs.length, 20);
    assert.equal(figures.call.durationsUs.length, 50);
    assert.ok(figures.call.p50 > 0 && figures.call.p95 >= figures.call.p50);
  });
});

const STUBBED = `(module
  (type $v (func))
  (import "host" "add" (func $add (param i32 i64) (result i64)))
  (import "host" "pair" (func $pair (result i32 f64)))
  (import "host" "memory" (memory 2 4 shared))
  (import "host" "table" (table 3 externref))
  (import "host" "counter" (global $counter (mut i64)))
  (import "host" "oops" (tag (param i32)))
  (global $posts (mut i32) (i32.const 0))
  (func (export "_initialize") unreachable)
  (func (export "get") (result i32)
    (drop (call $add (i32.const 1) (i64.const 2)))
    (i32.atomic.store (i32.const 0) (i32.const 7))
    (i32.const 42))
  (func (export "cabi_post_get") (param i32)
    (if (i32.ne (local.get 0) (i32.const 42)) (then unreachable))
    (global.set $posts (i32.add (global.get $posts) (i32.const 1))))
  (func (export "posts") (result i32) (global.get $posts)))`;

describe("raw floor", () => {
  it("reads declared import types", async () => {
    const imports = readImportTypes(await wat(STUBBED, { threads: true, exceptions: true }));
    assert.deepEqual(
      imports.map((item) => [item.name, item.type]),
      [
        ["add", { kind: "function", params: ["i32", "i64"], results: ["i64"] }],
        ["pair", { kind: "function", params: [], results: ["i32", "f64"] }],
        ["memory", { kind: "memory", limits: { min: 2, max: 4, shared: true, is64: false } }],
        ["table", { kind: "table", element: "externref", limits: { min: 3, max: undefined, shared: false, is64: false } }],
        ["counter", { kind: "global", value: "i64", mutable: true }],
        ["oops", { kind: "tag", params: ["i32"] }],
      ],
    );
  });

  it("instantiates with typed stubs, skips initialisers, and pairs the post-return", async () => {
    const figures = await measureRaw(await wat(STUBBED, { threads: true, exceptions: true }), {
      instance: { iterations: 10, warmup: 1 },
      call: { iterations: 40, warmup: 4 },
    });
    assert.equal(figures.callExport, "get");
    assert.equal(figures.postReturnExport, "cabi_post_get");
    assert.equal(figures.stubbedImports, 6);
    assert.equal(figures.importCallsPerCall, 1);
    assert.equal(figures.instanceReady.durationsUs.length, 10);
    assert.equal(figures.call.durationsUs.length, 40);
  });

  it("calls the export it is told to", async () => {
    const figures = await measureRaw(await wat(STUBBED, { threads: true, exceptions: true }), {
      callExport: "posts",
      instance: { iterations: 2, warmup: 0 },
      call: { iterations: 5, warmup: 0 },
    });
    assert.equal(figures.postReturnExport, undefined);
    assert.equal(figures.importCallsPerCall, 0);
  });

  const refused: { name: string; text: string; features?: Record<string, boolean>; callExport: string; message: RegExp }[] = [
    { name: "a memory64 import", text: `(module (import "h" "m" (memory i64 1)))`, features: { memory64: true }, callExport: "f", message: /memory64/ },
    { name: "a missing callExport", text: `(module (func (export "f")))`, callExport: "nope", message: /no function named nope/ },
    { name: "a callExport with parameters", text: `(module (func (export "f") (param i32)))`, callExport: "f", message: /takes 1 parameters/ },
  ];
  for (const { name, text, features, callExport, message } of refused) {
    it(`refuses ${name}`, async () => {
      const bytes = await wat(text, features);
      await assert.rejects(measureRaw(bytes, { callExport, instance: { iterations: 1, warmup: 0 } }), (error: unknown) => {
        assert.ok(error instanceof InvalidInputError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
  it("control: a plain zero-parameter export is accepted", async () => {
    const figures = await measureRaw(await wat(`(module (func (export "f")))`), {
      callExport: "f",
      instance: { iterations: 1, warmup: 0 },
      call: { iterations: 1, warmup: 0 },
    });
    assert.equal(figures.callExport, "f");
  });
});
