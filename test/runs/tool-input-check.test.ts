/** `checkToolInput` on its own: each refusal beside a control, including a tool whose stored schema no longer compiles. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkToolInput } from "../../runtime/runs/tool-input.js";

const tool = (inputSchema: unknown) => ({ qualifiedName: "demo.run", inputSchema });

const cases: Array<[string, unknown, unknown, string | undefined, string | undefined]> = [
  // [case, schema, input, kind, reason]
  ["control: matches", { type: "object", properties: { n: { type: "number" } } }, { n: 1 }, undefined, undefined],
  ["schema mismatch", { type: "object", properties: { n: { type: "number" } } }, { n: "1" }, "invalid-input", "schema-mismatch"],
  ["null input", { type: "object" }, null, "invalid-input", "not-an-object"],
  ["a number", { type: "object" }, 7, "invalid-input", "not-an-object"],
  ["prototype key deep inside", { type: "object" }, { a: [{ b: { prototype: 1 } }] }, "invalid-input", "forbidden-key"],
  ["control: a schema that matches anything still refuses __proto__", {}, JSON.parse('{"__proto__":{}}'), "invalid-input", "forbidden-key"],
  ["a stored schema that does not compile", { type: "bogus" }, {}, "tool-schema-invalid", "tool-schema-invalid"],
  ["a stored schema with an exponential pattern", { type: "object", properties: { s: { type: "string", pattern: "(x+)+y" } } }, { s: "x" }, "tool-schema-invalid", "tool-schema-invalid"],
];
for (const [name, schema, input, kind, reason] of cases) {
  test(`checkToolInput: ${name}`, () => {
    const refusal = checkToolInput(tool(schema), input);
    assert.equal(refusal?.kind, kind);
    assert.equal(refusal?.denial.reason, reason);
    if (refusal) assert.equal(refusal.denial.capability, "tool-input");
  });
}

test("a refused input that cannot be written safely is recorded as a summary; a schema mismatch as itself", () => {
  assert.deepEqual(checkToolInput(tool({}), JSON.parse('{"a":{"__proto__":1}}'))?.recorded, { refused: "forbidden-key", at: "input.a.__proto__" });
  assert.deepEqual(checkToolInput(tool({ type: "object", required: ["x"] }), { y: 1 })?.recorded, { y: 1 });
});
