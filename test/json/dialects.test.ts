/**
 * Tool schemas are validated in the JSON Schema dialect they declare (`$schema`): draft-04,
 * draft-06, draft-07, 2019-09 and 2020-12, each with its own rules; one without `$schema` in its
 * source's default (an MCP server's 2020-12, a plugin's draft-07). A dialect clawhive does not
 * know is refused with the reason, never guessed. Each refusal has a passing control beside it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { compileToolSchema, MCP_SCHEMA_DIALECT, PLUGIN_SCHEMA_DIALECT, ToolSchemaError, type SchemaDialect } from "../../runtime/json/index.js";

const D4 = "http://json-schema.org/draft-04/schema#";
const D6 = "http://json-schema.org/draft-06/schema#";
const D7 = "http://json-schema.org/draft-07/schema#";
const D2019 = "https://json-schema.org/draft/2019-09/schema";
const D2020 = "https://json-schema.org/draft/2020-12/schema";

/** [what, schema, a valid input, an invalid input and what it is refused for]. */
const cases: Array<[string, Record<string, unknown>, unknown, unknown, RegExp]> = [
  ["draft-04: exclusiveMinimum as a boolean", { $schema: D4, type: "object", properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } } }, { n: 1 }, { n: 0 }, /input\.n: must be > 0/],
  ["draft-06: exclusiveMinimum as a number, const", { $schema: D6, type: "object", properties: { n: { exclusiveMinimum: 0 }, k: { const: "a" } } }, { n: 1, k: "a" }, { n: 1, k: "b" }, /input\.k: must be equal to constant/],
  ["draft-07: items as a tuple, if/then", { $schema: D7, type: "object", properties: { t: { type: "array", items: [{ type: "number" }, { type: "string" }], additionalItems: false } } }, { t: [1, "a"] }, { t: [1, 2] }, /input\.t\[1\]: must be string/],
  ["2019-09: dependentRequired", { $schema: D2019, type: "object", dependentRequired: { a: ["b"] } }, { a: 1, b: 2 }, { a: 1 }, /input\.b: is required/],
  ["2019-09: unevaluatedProperties", { $schema: D2019, type: "object", allOf: [{ properties: { a: {} } }], unevaluatedProperties: false }, { a: 1 }, { a: 1, z: 2 }, /unevaluated properties/],
  ["2020-12: prefixItems with items: false", { $schema: D2020, type: "object", properties: { t: { type: "array", prefixItems: [{ type: "number" }], items: false } } }, { t: [1] }, { t: [1, 2] }, /input\.t: must NOT have more than 1 items/],
  ["2020-12: $defs and $ref", { $schema: D2020, type: "object", properties: { p: { $ref: "#/$defs/p" } }, $defs: { p: { type: "integer" } } }, { p: 1 }, { p: 1.5 }, /input\.p: must be integer/],
  ["2020-12 by https or http, with or without #", { $schema: "http://json-schema.org/draft/2020-12/schema#", type: "object", properties: { t: { prefixItems: [{ type: "string" }] } } }, { t: ["a"] }, { t: [1] }, /input\.t\[0\]: must be string/],
];

for (const [what, schema, good, bad, message] of cases) {
  for (const dialect of [MCP_SCHEMA_DIALECT, PLUGIN_SCHEMA_DIALECT] as SchemaDialect[]) {
    test(`${what} (default ${dialect}): the valid input passes, the invalid one is refused`, () => {
      const validate = compileToolSchema(structuredClone(schema), { tool: "t.run", dialect });
      assert.equal(validate(good), undefined, "control");
      assert.match(validate(bad)?.message ?? "(accepted)", message);
    });
  }
}

test("zod 4's z.toJSONSchema output compiles and validates (it declares 2020-12)", () => {
  const schema = z.toJSONSchema(z.object({ name: z.string().min(1), pair: z.tuple([z.number(), z.string()]), at: z.object({ x: z.number() }).optional() }));
  const validate = compileToolSchema(schema, { tool: "t.run", dialect: PLUGIN_SCHEMA_DIALECT });
  assert.equal(validate({ name: "a", pair: [1, "b"] }), undefined);
  assert.match(validate({ name: "a", pair: ["b", 1] })?.message ?? "", /input\.pair\[0\]: must be number/);
  assert.match(validate({ name: "", pair: [1, "b"] })?.message ?? "", /input\.name: must NOT have fewer than 1 characters/);
});

test("without $schema: an MCP tool's schema is 2020-12, a plugin's draft-07", () => {
  const tuple = { type: "object", properties: { t: { type: "array", prefixItems: [{ type: "string" }] } } };
  assert.match(compileToolSchema(structuredClone(tuple), { tool: "m.run", dialect: MCP_SCHEMA_DIALECT })({ t: [1] })?.message ?? "", /input\.t\[0\]: must be string/);
  const draft7Tuple = { type: "object", properties: { t: { type: "array", items: [{ type: "string" }] } } };
  assert.match(compileToolSchema(structuredClone(draft7Tuple), { tool: "p.run", dialect: PLUGIN_SCHEMA_DIALECT })({ t: [1] })?.message ?? "", /input\.t\[0\]: must be string/);
  // The same draft-07 tuple is no 2020-12 schema: an MCP tool without $schema that writes it is refused.
  assert.throws(() => compileToolSchema(structuredClone(draft7Tuple), { tool: "m.run", dialect: MCP_SCHEMA_DIALECT }), /does not compile as JSON Schema 2020-12/);
});

const refused: Array<[string, Record<string, unknown>, RegExp]> = [
  ["an unknown dialect", { $schema: "https://example.com/my-dialect", type: "object" }, /names a JSON Schema dialect clawhive cannot validate/],
  ["draft-03", { $schema: "http://json-schema.org/draft-03/schema#", type: "object" }, /cannot validate/],
  ["a $schema that is no string", { $schema: 7, type: "object" }, /\$schema must be a string/],
  ["a keyword invalid in its dialect (2020-12 items as an array)", { $schema: D2020, type: "object", properties: { t: { items: [{}] } } }, /does not compile as JSON Schema 2020-12/],
  ["a keyword invalid in its dialect (draft-04 exclusiveMinimum as a number)", { $schema: D4, type: "object", properties: { n: { exclusiveMinimum: 1 } } }, /does not compile as JSON Schema draft-04/],
];
for (const [what, schema, message] of refused) {
  test(`refused, naming the tool: ${what}`, () => {
    assert.throws(() => compileToolSchema(schema, { tool: "t.run", dialect: MCP_SCHEMA_DIALECT }), (e: unknown) => e instanceof ToolSchemaError && /^tool t\.run: /.test(e.message) && message.test(e.message));
  });
}
