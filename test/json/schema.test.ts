/**
 * Tool input schemas compiled with ajv on the host: inputs checked against them, and schemas
 * from plugins treated as hostile (refused at compile time, never able to stall a call).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compileToolSchema, PATTERN_INPUT_MAX, ToolSchemaError } from "../../runtime/json/index.js";

const readFile = { type: "object", properties: { path: { type: "string" }, max: { type: "integer", minimum: 1 } }, required: ["path"], additionalProperties: false };

const inputs: Array<[string, unknown, string | undefined]> = [
  ["control: valid", { path: "/w/a.txt" }, undefined],
  ["control: valid with an optional field", { path: "/w/a.txt", max: 3 }, undefined],
  ["missing required field", {}, "input.path: is required"],
  ["wrong type", { path: 42 }, "input.path: must be string"],
  ["below the minimum", { path: "a", max: 0 }, "input.max: must be >= 1"],
  ["an extra field", { path: "a", evil: true }, 'input: must NOT have additional properties ("evil")'],
];
for (const [name, input, message] of inputs) {
  test(`input against its schema: ${name}`, () => {
    assert.equal(compileToolSchema(readFile, { tool: "files.read" })(input)?.message, message);
  });
}

test("a schema is compiled once: the same object gives the same validator", () => {
  const schema = { type: "object" };
  assert.equal(compileToolSchema(schema, { tool: "t" }), compileToolSchema(schema, { tool: "t" }));
});

test("nested paths and odd keys are named; the message is bounded", () => {
  const schema = { type: "object", properties: { list: { type: "array", items: { type: "object", properties: { "a b": { type: "string" } } } } } };
  assert.equal(compileToolSchema(schema, { tool: "t" })({ list: [{ "a b": "x" }, { "a b": 1 }] })?.message, 'input.list[1]["a b"]: must be string');
  const long = { type: "object", properties: { ["k".repeat(2000)]: { type: "string" } } };
  assert.ok(compileToolSchema(long, { tool: "t" })({ ["k".repeat(2000)]: 1 })!.message.length <= 301);
});

const hostile: Array<[string, unknown, RegExp]> = [
  ["not an object", "[1,2]", /must be a JSON Schema object/],
  ["not JSON", "{nope", /not JSON/],
  ["nested 20,000 deep", `${'{"not":'.repeat(20_000)}{}${"}".repeat(20_000)}`, /nested more than 64 levels deep/],
  ["an exponential pattern (a+)+", { type: "string", pattern: "^(a+)+$" }, /backtrack exponentially/],
  ["an exponential alternation (a|a)*", { type: "string", pattern: "^(a|a)*b$" }, /backtrack exponentially/],
  ["a nested group repeated", { type: "string", pattern: "^((ab)*c)+$" }, /backtrack exponentially/],
  ["a backreference", { type: "string", pattern: "^(a)\\1$" }, /backreference/],
  ["an exponential patternProperties key", { type: "object", patternProperties: { "^(x+)+$": { type: "string" } } }, /backtrack exponentially/],
  ["an invalid pattern", { type: "string", pattern: "(" }, /does not compile/],
  ["a remote $ref (nothing is fetched)", { $ref: "https://example.com/schema.json" }, /does not compile as JSON Schema draft-07: can't resolve reference/],
  ["a type that is no type", { type: "bogus" }, /does not compile/],
];
for (const [name, schema, message] of hostile) {
  // At install (checked against the meta-schema too) and when an installed plugin's tool is called.
  for (const installed of [false, true]) {
    test(`a hostile schema is refused when compiled${installed ? " for a call" : ""}: ${name}`, () => {
      assert.throws(() => compileToolSchema(schema, { tool: "evil.run", installed }), (e: unknown) => e instanceof ToolSchemaError && e.code === "tool_schema_invalid" && /^tool evil\.run: /.test(e.message) && message.test(e.message));
    });
  }
}

test("the meta-schema is checked at install; an installed schema is compiled without it (control: a keyword of the wrong type is refused either way)", () => {
  const negative = { type: "object", properties: { s: { type: "string", minLength: -1 } } };
  assert.throws(() => compileToolSchema(negative, { tool: "t" }), /must be >= 0/);
  assert.equal(compileToolSchema(structuredClone(negative), { tool: "t", installed: true })({ s: "" }), undefined);
  const wrongType = { type: "object", properties: { s: { type: "string", minLength: "1" } } };
  assert.throws(() => compileToolSchema(wrongType, { tool: "t", installed: true }), /minLength value must be \["number"\]/);
});

test("control: safe patterns, unknown keywords and unknown formats compile and validate", () => {
  const validate = compileToolSchema(
    { type: "object", "x-vendor": { any: 1 }, properties: { id: { type: "string", pattern: "^[a-z0-9-]+$", format: "made-up" }, host: { type: "string", pattern: "^([a-z]+\\.)?example\\.com$" } } },
    { tool: "t" },
  );
  assert.equal(validate({ id: "abc-1", host: "www.example.com" }), undefined);
  assert.equal(validate({ id: "ABC" })?.message, 'input.id: must match pattern "^[a-z0-9-]+$"');
});

test("a pattern with several unbounded repetitions is tried on bounded strings only", () => {
  const validate = compileToolSchema({ type: "object", properties: { s: { type: "string", pattern: "^\\s*a*\\s*$" } } }, { tool: "t" });
  assert.equal(validate({ s: "  aaa  " }), undefined);
  assert.match(validate({ s: " ".repeat(PATTERN_INPUT_MAX + 1) })?.message ?? "", /longer than 10000 characters/);
});

test("uniqueItems is linear: thousands of distinct objects pass, a duplicate (keys in any order) is named", () => {
  const validate = compileToolSchema({ type: "object", properties: { list: { type: "array", uniqueItems: true } } }, { tool: "t" });
  const list = Array.from({ length: 50_000 }, (_, i) => ({ id: i, tags: [i % 7] }));
  assert.equal(validate({ list }), undefined);
  assert.match(validate({ list: [{ a: 1, b: 2 }, { b: 2, a: 1 }] })?.message ?? "", /duplicate items \(items 0 and 1/);
});

test("one plugin's $id neither clashes with nor is reachable from another's", () => {
  const a = { $id: "urn:x:s", type: "object", properties: { n: { $ref: "#/$defs/n" } }, $defs: { n: { $id: "urn:x:n", type: "number" } } };
  assert.equal(compileToolSchema(a, { tool: "a.run" })({ n: 1 }), undefined);
  assert.equal(compileToolSchema(structuredClone(a), { tool: "b.run" })({ n: "x" })?.message, "input.n: must be number");
  assert.throws(() => compileToolSchema({ type: "object", properties: { n: { $ref: "urn:x:n" } } }, { tool: "c.run" }), ToolSchemaError);
});
