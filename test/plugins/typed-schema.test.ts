/**
 * Typed WIT exports become tools: each WIT type kind maps to a JSON Schema read from the
 * component binary itself; a type JSON cannot carry (handles, resources, streams, futures,
 * error contexts, async functions) refuses the install naming the function and the type, each
 * refusal beside a control that installs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { PluginError } from "../../runtime/errors.js";
import { compileToolSchema } from "../../runtime/json/index.js";
import { readComponentTypes, readTypedTools } from "../../runtime/plugins/typed/index.js";
import { typedDummy, worldOf } from "../helpers/typed-components.js";

async function toolsOf(items: string, prelude = "") {
  const { bytes } = await typedDummy(worldOf(items, prelude));
  return readTypedTools(bytes, "test").tools;
}

const kinds: Array<[string, string, string, unknown, unknown[], unknown[]]> = [
  // [label, prelude types, parameter type, schema fragment expected, good values, bad values]
  ["bool", "", "bool", { type: "boolean" }, [true], ["true", 1]],
  ["u8 range", "", "u8", { type: "integer", minimum: 0, maximum: 255 }, [0, 255], [256, -1, 1.5]],
  ["s16 range", "", "s16", { type: "integer", minimum: -32768, maximum: 32767 }, [-32768], [32768]],
  ["u32 range", "", "u32", { type: "integer", minimum: 0, maximum: 4294967295 }, [4294967295], [4294967296]],
  ["s64 number or string", "", "s64", { type: ["integer", "string"] }, [-5, "-9223372036854775808"], [1.5, "1e3", "abc"]],
  ["f64", "", "f64", { type: "number" }, [1.5], ["1.5"]],
  ["char", "", "char", { type: "string", pattern: "^[\\s\\S]$" }, ["a", "😀"], ["ab", ""]],
  ["string", "", "string", { type: "string" }, ["x"], [1]],
  ["list<string>", "", "list<string>", { type: "array", items: { type: "string" } }, [["a"]], [[1], "a"]],
  ["list<u8> as base64 or bytes", "", "list<u8>", { anyOf: [{ type: "string", description: "base64" }, { type: "array", items: { type: "integer", minimum: 0, maximum: 255 } }] }, ["AAE=", [0, 255]], [[256], 5]],
  ["tuple", "", "tuple<u8, string>", { type: "array", minItems: 2, maxItems: 2, additionalItems: false }, [[1, "a"]], [[1], [1, "a", 2], ["a", 1]]],
  ["record", "record pt { x-pos: s32, label: option<string> }", "pt", { type: "object", required: ["x_pos"], additionalProperties: false }, [{ x_pos: 1 }, { x_pos: 1, label: "a" }], [{ x: 1 }, { x_pos: 1, extra: 2 }]],
  ["variant", "variant sh { circle(u32), none }", "sh", { oneOf: [{ properties: { tag: { const: "circle" } } }, { properties: { tag: { const: "none" } } }] }, [{ tag: "circle", val: 1 }, { tag: "none" }], [{ tag: "square" }, { tag: "circle" }]],
  ["enum", "enum color { red, dark-green }", "color", { type: "string", enum: ["red", "dark-green"] }, ["dark-green"], ["green"]],
  ["flags", "flags style { bold, italic-text }", "style", { type: "array", uniqueItems: true }, [["bold", "italic-text"], []], [["underline"], ["bold", "bold"]]],
  ["option", "", "option<u32>", { anyOf: [{ type: "integer" }, { type: "null" }] }, [null, 3], ["3"]],
  ["nested option", "", "option<option<u32>>", { anyOf: [{ type: "object", required: ["some"] }, { type: "null" }] }, [null, { some: null }, { some: 2 }], [2]],
  ["result", "", "result<u32, string>", { oneOf: [{ required: ["ok"] }, { required: ["err"] }] }, [{ ok: 1 }, { err: "no" }], [{ ok: "x" }, { ok: 1, err: "a" }, {}]],
];

for (const [label, prelude, type, fragment, good, bad] of kinds) {
  test(`WIT ${label} becomes a JSON Schema that takes what it should and refuses the rest`, async () => {
    const [tool] = await toolsOf(`${prelude ? `  ${prelude}\n` : ""}  export take: func(value: ${type});`);
    assert.equal(tool?.name, "take");
    const schema = tool!.inputSchema as { properties: { value: unknown } };
    assertContains(schema.properties.value, fragment);
    const validate = compileToolSchema(tool!.inputSchema, { tool: "take" });
    for (const value of good) assert.equal(validate({ value }), undefined, `${JSON.stringify(value)} should pass`);
    for (const value of bad) assert.notEqual(validate({ value }), undefined, `${JSON.stringify(value)} should be refused`);
  });
}

test("interface exports become tools named after the interface; top-level ones after the function", async () => {
  const { bytes } = await typedDummy(`package test:typed;
interface weather {
  record report { city: string, celsius: f32 }
  get-report: func(city: string) -> result<report, string>;
}
world root {
  export weather;
  export ping: func() -> string;
}`);
  const { tools, types } = readTypedTools(bytes, "test");
  assert.deepEqual(tools.map((t) => t.name).sort(), ["ping", "weather_get_report"]);
  assert.equal(types.toolsContract, false);
  const report = tools.find((t) => t.name === "weather_get_report")!;
  assert.deepEqual(report.plan.iface, "test:typed/weather");
  assert.equal(report.plan.fn, "getReport");
  assert.match(report.description, /get-report\(city: string\) -> result<record report, string>/);
});

test("a world's own types and the describe/call contract are told apart from typed exports", async () => {
  const { bytes } = await typedDummy(worldOf("  record pair { a: u8 }\n  export swap: func(p: pair) -> pair;"));
  const types = readComponentTypes(bytes, "test");
  assert.deepEqual(types.typeOnlyImports, ["pair"]);
  assert.equal(types.exports[0]?.name, "swap");
});

const unmappable: Array<[string, string, string, RegExp | undefined]> = [
  // [label, interfaces, world items, the refusal expected (undefined: the control installs)]
  ["control: nested lists, tuples, options and results", "", "export f: func(a: list<tuple<u8, string>>) -> result<option<u64>, string>;", undefined],
  ["an owned handle parameter", "interface h { resource blob; take: func(b: blob); }", "export h;", /function test:typed\/h\.take: parameter b has type own<blob> \(a resource handle\), which cannot be expressed as JSON/],
  ["a constructor's handle result", "interface h { resource blob { constructor(n: u32); } }", "export h;", /function test:typed\/h\.\[constructor\]blob: its result has type own<blob>/],
  ["a borrowed handle", "interface h { resource blob; peek: func(b: borrow<blob>) -> u32; }", "export h;", /function test:typed\/h\.peek: parameter b has type borrow<blob>/],
  ["a handle deep inside a record", "interface h { resource blob; record holder { inner: list<option<blob>> } keep: func(x: holder); }", "export h;", /function test:typed\/h\.keep: parameter x has type own<blob>/],
  ["a handle in a result's error", "interface h { resource blob; open: func() -> result<u32, blob>; }", "export h;", /function test:typed\/h\.open: its result has type own<blob>/],
  ["a future result", "", "export f: func() -> future<u32>;", /function f: its result has type future, which cannot be expressed as JSON/],
  ["a stream parameter", "", "export g: func(s: stream<u8>);", /function g: parameter s has type stream/],
  ["an error-context", "", "export h: func(e: error-context);", /function h: parameter e has type error-context/],
];

for (const [label, interfaces, items, expected] of unmappable) {
  test(`install refuses ${label}, naming the function and the type`, async () => {
    const { bytes } = await typedDummy(`package test:typed;\n${interfaces}\nworld root {\n  ${items}\n}\n`);
    if (expected === undefined) {
      assert.ok(readTypedTools(bytes, "test").tools.length > 0);
      return;
    }
    assert.throws(() => readTypedTools(bytes, "test"), (error: unknown) => {
      assert.ok(error instanceof PluginError);
      assert.equal(error.code, "wit_type_unmappable");
      assert.match(error.message, expected);
      return true;
    });
  });
}

test("an async function is refused by name; a plain one beside it is the control", async () => {
  const { bytes } = await typedDummy(worldOf("  export slow: async func() -> u32;"));
  assert.throws(() => readTypedTools(bytes, "test"), /function slow: the function has type async func/);
  const plain = await typedDummy(worldOf("  export quick: func() -> u32;"));
  assert.equal(readTypedTools(plain.bytes, "test").tools[0]?.name, "quick");
});

test("two exports that would share a tool name are refused", async () => {
  const { bytes } = await typedDummy(`package test:typed;
interface a-b { c: func(); }
world root {
  export a-b;
  export a-b-c: func();
}`);
  assert.throws(() => readTypedTools(bytes, "test"), { code: "wit_export_collision" });
});

test("a type that expands past the node budget is refused, not expanded", async () => {
  let prelude = "  type t0 = tuple<u8, u8>;\n";
  for (let i = 1; i <= 13; i++) prelude += `  type t${i} = tuple<t${i - 1}, t${i - 1}>;\n`;
  const { bytes } = await typedDummy(worldOf(`${prelude}  export f: func(x: t13);`));
  assert.throws(() => readTypedTools(bytes, "test"), /function f: parameter x has type a type that expands to more than 5000 schema nodes/);
  const small = await typedDummy(worldOf(`${prelude}  export f: func(x: t3);`));
  assert.equal(readTypedTools(small.bytes, "test").tools.length, 1);
});

test("bytes that are not a component are refused as unreadable", () => {
  assert.throws(() => readComponentTypes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), "core"), { code: "component_unreadable" });
  assert.throws(() => readComponentTypes(new Uint8Array([0, 0x61, 0x73, 0x6d, 0x0d, 0, 1, 0, 7, 0xff]), "cut"), { code: "component_unreadable" });
});

/** Every key of `fragment` is in `actual` with that value (recursively; arrays by position). */
function assertContains(actual: unknown, fragment: unknown, at = "schema"): void {
  if (fragment === null || typeof fragment !== "object") {
    assert.deepEqual(actual, fragment, at);
    return;
  }
  assert.ok(actual !== null && typeof actual === "object", `${at}: expected an object`);
  for (const [key, value] of Object.entries(fragment)) assertContains((actual as Record<string, unknown>)[key], value, `${at}.${key}`);
}
