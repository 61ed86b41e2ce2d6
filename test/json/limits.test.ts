/**
 * The bounded JSON checks: every hostile shape beside a control of the same kind that passes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkJsonValue, CLIENT_JSON, GUEST_RESULT_JSON, parseArgument, parseBounded, scanJson, TOOL_INPUT_JSON, type JsonLimits } from "../../runtime/json/index.js";

const nested = (depth: number, open = "[", close = "]", inner = "") => open.repeat(depth) + inner + close.repeat(depth);
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const SMALL: JsonLimits = { maxDepth: 4, maxLength: 200, maxValues: 20, forbiddenKeys: new Set(["__proto__", "constructor", "prototype"]) };

const texts: Array<[string, string, JsonLimits, string | undefined, string?]> = [
  // [case, text, limits, expected problem code (undefined: passes), expected path]
  ["control: 64 arrays deep, at the client limit", nested(64), CLIENT_JSON, undefined],
  ["20,000 arrays deep", nested(20_000), CLIENT_JSON, "too-deep"],
  ["control: 64 objects deep", nestedObject(64), CLIENT_JSON, undefined],
  ["65 objects deep names the path", nestedObject(65), CLIENT_JSON, "too-deep"],
  ["control: 128 deep is a valid guest result", nested(128), GUEST_RESULT_JSON, undefined],
  ["129 deep is not", nested(129), GUEST_RESULT_JSON, "too-deep"],
  ["control: brackets inside strings are text", JSON.stringify({ s: nested(500) }), CLIENT_JSON, undefined],
  ["control: escaped quotes do not end a string", JSON.stringify({ s: `\\"${nested(500)}` }), CLIENT_JSON, undefined],
  ["control: wide but within the value count", `[${Array(19).fill(1).join(",")}]`, SMALL, undefined],
  ["wide: too many values", `[${Array(25).fill(1).join(",")}]`, SMALL, "too-many-values"],
  ["control: within the length", `"${"x".repeat(150)}"`, SMALL, undefined],
  ["huge: too long", `"${"x".repeat(250)}"`, SMALL, "too-long"],
  ["control: a key that only contains proto", '{"my__proto__":1,"constructors":2}', SMALL, undefined],
  ["__proto__ key", '{"a":{"__proto__":{"polluted":true}}}', SMALL, "forbidden-key", "input.a.__proto__"],
  ["__proto__ written with escapes", '{"\\u005f_proto__":1}', SMALL, "forbidden-key"],
  ["constructor key inside an array", '{"list":[1,{"constructor":{}}]}', SMALL, "forbidden-key", "input.list[1].constructor"],
  ["prototype key", '{"prototype":1}', SMALL, "forbidden-key"],
  ["control: forbidden words as values", '{"k":"__proto__","v":["constructor"]}', SMALL, undefined],
];

for (const [name, text, limits, code, path] of texts) {
  test(`scanJson: ${name}`, () => {
    const problem = scanJson(text, limits, { at: "input" });
    assert.equal(problem?.code, code, problem?.message);
    if (path !== undefined) assert.equal(problem?.path, path);
    if (problem) assert.ok(problem.message.startsWith(problem.path), problem.message);
  });
}

test("scanJson: the path to a deep place is named, and its length bounded", () => {
  const problem = scanJson(`{"input":{"items":[0,${nested(70)}]}}`, CLIENT_JSON, { at: "body" });
  assert.equal(problem?.code, "too-deep");
  assert.match(problem!.path, /^body\.input\.items\[1\]\[0\]\[0\]/);
  assert.ok(problem!.message.length < 300, problem!.message);
  const deep = scanJson(nested(20_000), CLIENT_JSON, { at: "body" });
  assert.ok(deep!.message.length < 300);
});

test("scanJson: malformed text is left to the parser, never thrown on", () => {
  for (const text of ["]]]]", "{{{", '"unterminated', "[1,,2]", "}", "", "\\"]) assert.doesNotThrow(() => scanJson(text, CLIENT_JSON));
  const parsed = parseBounded("[1,", CLIENT_JSON, { at: "body" });
  assert.equal(parsed.ok ? "ok" : parsed.problem.code, "not-json");
});

const cyclic: Record<string, unknown> = { name: "loop" };
cyclic.self = { back: [cyclic] };
const shared = { x: 1 };
const deepValue = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
// Shared references doubling at every level: 2^40 values when written out, if nothing counted.
const diamond = (levels: number): unknown => {
  let v: unknown = [1];
  for (let i = 0; i < levels; i++) v = [v, v];
  return v;
};
const values: Array<[string, unknown, string | undefined]> = [
  ["control: plain input", { path: "/w/a.txt", n: 3, list: [1, "two", null, true] }, undefined],
  ["control: shared (not cyclic) references", { a: shared, b: shared }, undefined],
  ["a cycle", cyclic, "cycle"],
  ["20,000 deep", deepValue(20_000), "too-deep"],
  ["control: 64 deep", deepValue(63), undefined],
  ["shared references that explode when written", diamond(40), "too-many-values"],
  ["a __proto__ own key (as JSON.parse makes it)", JSON.parse('{"a":{"__proto__":{"x":1}}}'), "forbidden-key"],
  ["a constructor key", { constructor: "x" }, "forbidden-key"],
  ["a bigint", { n: 10n }, "not-json"],
  ["control: a Date (written by its toJSON)", { at: new Date(0) }, undefined],
  ["huge string", { s: "x".repeat((4 << 20) + 1) }, "too-long"],
];
for (const [name, value, code] of values) {
  test(`checkJsonValue: ${name}`, () => {
    assert.equal(checkJsonValue(value, TOOL_INPUT_JSON, { at: "input" })?.code, code);
  });
}

test("checkJsonValue names the path to the problem", () => {
  assert.equal(checkJsonValue(cyclic, TOOL_INPUT_JSON, { at: "input" })?.path, "input.self.back[0]");
  assert.equal(checkJsonValue({ a: [0, JSON.parse('{"__proto__":1}')] }, TOOL_INPUT_JSON, { at: "input" })?.path, "input.a[1].__proto__");
});

test("parseArgument: a clear error naming the argument; control: parses", () => {
  assert.deepEqual(parseArgument('{"a":1}', CLIENT_JSON, { at: "JSON-INPUT", field: "input" }), { a: 1 });
  assert.throws(() => parseArgument(nested(20_000), CLIENT_JSON, { at: "JSON-INPUT", field: "input" }), { code: "invalid_input", message: /^JSON-INPUT\[0\].*nested more than 64 levels deep/ });
  assert.throws(() => parseArgument("{nope", CLIENT_JSON, { at: "JSON-INPUT", field: "input" }), { message: /^JSON-INPUT: not valid JSON: / });
});
