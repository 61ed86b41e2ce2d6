import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson } from "../../runtime/audit/index.js";
import { InvalidInputError } from "../../runtime/errors.js";

describe("canonicalJson", () => {
  const written: [string, unknown, string][] = [
    ["sorts keys", { b: 1, a: 2 }, `{"a":2,"b":1}`],
    ["sorts nested keys, keeps array order", { z: [3, { y: 1, x: 2 }], a: null }, `{"a":null,"z":[3,{"x":2,"y":1}]}`],
    ["sorts by UTF-16 code units, digits as text", { é: 1, z: 2, A: 3, "10": 4, "9": 5 }, `{"10":4,"9":5,"A":3,"z":2,"é":1}`],
    ["escapes as JSON.stringify does", { s: 'é\n"\\\u0001' }, `{"s":"é\\n\\"\\\\\\u0001"}`],
    ["writes numbers as ECMAScript does", [1.0, 0.1, -0, 1e21, 1e-7, -5], `[1,0.1,0,1e+21,1e-7,-5]`],
    ["drops undefined properties", { a: 1, b: undefined }, `{"a":1}`],
    ["accepts a null-prototype object (control)", Object.assign(Object.create(null) as object, { b: true, a: false }), `{"a":false,"b":true}`],
    ["writes the empty containers", { a: [], b: {} }, `{"a":[],"b":{}}`],
  ];
  for (const [label, value, expected] of written) {
    it(label, () => assert.equal(canonicalJson(value), expected));
  }

  it("is the same text whatever the insertion order", () => {
    assert.equal(canonicalJson({ a: 1, b: { c: 2, d: 3 } }), canonicalJson({ b: { d: 3, c: 2 }, a: 1 }));
  });

  const deep: Record<string, unknown> = {};
  let cursor = deep;
  for (let i = 0; i < 70; i++) cursor = (cursor.next = {}) as Record<string, unknown>;

  const refused: [string, unknown, string][] = [
    ["NaN", { a: [1, Number.NaN] }, "$.a[1]"],
    ["Infinity", { a: Number.POSITIVE_INFINITY }, "$.a"],
    ["a bigint", { a: 1n }, "$.a"],
    ["a function", { a: () => 1 }, "$.a"],
    ["a Date", { when: new Date(0) }, "$.when"],
    ["a Map", new Map(), "$"],
    ["undefined in an array", [1, undefined], "$[1]"],
    ["a cycle or very deep nesting", deep, `$${".next".repeat(64)}`],
  ];
  for (const [label, value, path] of refused) {
    it(`refuses ${label}, naming the path`, () => {
      assert.throws(
        () => canonicalJson(value),
        (e: unknown) => e instanceof InvalidInputError && e.field === path,
      );
    });
  }
});
