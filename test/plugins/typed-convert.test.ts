/**
 * JSON → the values jco's glue takes, and back: every WIT type kind, good input beside bad
 * (the worker checks again what the schema already checked, and never trusts the shape).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { lift, lower, lowerArguments, LowerError, type WitType } from "../../runtime/plugins/typed/index.js";

const u8: WitType = { kind: "primitive", name: "u8" };
const u32: WitType = { kind: "primitive", name: "u32" };
const str: WitType = { kind: "primitive", name: "string" };
const point: WitType = { kind: "record", name: "point", fields: [{ name: "x-pos", type: u32 }, { name: "note", type: { kind: "option", inner: str } }] };
const shape: WitType = { kind: "variant", cases: [{ name: "circle", type: u32 }, { name: "empty" }] };
const style: WitType = { kind: "flags", names: ["bold", "italic-text"] };
const color: WitType = { kind: "enum", names: ["red", "dark-green"] };
const nested: WitType = { kind: "option", inner: { kind: "option", inner: u32 } };
const outcome: WitType = { kind: "result", ok: u32, err: str };
const bytes: WitType = { kind: "list", element: u8 };

const lowering: Array<[string, WitType, unknown, unknown]> = [
  ["u8", u8, 255, 255],
  ["u64 from a string", { kind: "primitive", name: "u64" }, "18446744073709551615", 18446744073709551615n],
  ["s64 from a number", { kind: "primitive", name: "s64" }, -3, -3n],
  ["char outside the BMP", { kind: "primitive", name: "char" }, "😀", "😀"],
  ["record: snake keys to camel fields, a missing option", point, { x_pos: 1 }, { xPos: 1, note: undefined }],
  ["variant with a payload", shape, { tag: "circle", val: 2 }, { tag: "circle", val: 2 }],
  ["variant without one", shape, { tag: "empty" }, { tag: "empty" }],
  ["flags: names to a boolean object", style, ["italic-text"], { bold: false, italicText: true }],
  ["enum", color, "dark-green", "dark-green"],
  ["option none", { kind: "option", inner: u32 }, null, undefined],
  ["nested option some(none)", nested, { some: null }, { tag: "some", val: undefined }],
  ["nested option none", nested, null, { tag: "none" }],
  ["result ok", outcome, { ok: 1 }, { tag: "ok", val: 1 }],
  ["result err", outcome, { err: "no" }, { tag: "err", val: "no" }],
  ["list<u8> from base64", bytes, "AAH/", new Uint8Array([0, 1, 255])],
  ["list<u8> from numbers", bytes, [0, 1, 255], new Uint8Array([0, 1, 255])],
  ["tuple", { kind: "tuple", items: [u8, str] }, [1, "a"], [1, "a"]],
  ["fixed-length list", { kind: "list", element: u8, length: 2 }, [1, 2], new Uint8Array([1, 2])],
];

for (const [label, type, json, js] of lowering) {
  test(`lower ${label}`, () => assert.deepEqual(lower(type, json, "input.v"), js));
}

const refused: Array<[string, WitType, unknown, RegExp]> = [
  ["u8 over its range", u8, 256, /input\.v: expected an integer from 0 to 255/],
  ["u8 fraction", u8, 1.5, /from 0 to 255/],
  ["u64 past 2^64", { kind: "primitive", name: "u64" }, "18446744073709551616", /from 0 to 18446744073709551615/],
  ["s64 unsafe number", { kind: "primitive", name: "s64" }, 2 ** 60, /as a number or a decimal string/],
  ["u64 negative", { kind: "primitive", name: "u64" }, "-1", /from 0/],
  ["two chars", { kind: "primitive", name: "char" }, "ab", /one Unicode scalar value/],
  ["a lone surrogate char", { kind: "primitive", name: "char" }, "\ud800", /one Unicode scalar value/],
  ["record with an unknown key", point, { x_pos: 1, xPos: 2 }, /input\.v: expected no field xPos/],
  ["record missing a required field", point, {}, /input\.v\.x_pos: expected a value of WIT u32 \(missing\)/],
  ["record given an array", point, [1], /expected an object/],
  ["variant with an unknown tag", shape, { tag: "square" }, /tag one of circle, empty/],
  ["variant missing its payload", shape, { tag: "circle" }, /input\.v\.val: expected a value of WIT u32/],
  ["variant payload on an empty case", shape, { tag: "empty", val: 1 }, /no val for case empty/],
  ["unknown flag", style, ["underline"], /flag names among bold, italic-text/],
  ["enum outside its names", color, "green", /one of red, dark-green/],
  ["nested option without some", nested, 3, /null or \{"some": …\}/],
  ["result with both sides", outcome, { ok: 1, err: "x" }, /\{"ok": …\} or \{"err": …\}/],
  ["bad base64", bytes, "***", /base64 text or a list of bytes/],
  ["tuple too short", { kind: "tuple", items: [u8, str] }, [1], /a list of 2/],
  ["fixed list too long", { kind: "list", element: u8, length: 2 }, [1, 2, 3], /exactly 2/],
];

for (const [label, type, json, message] of refused) {
  test(`lower refuses ${label}`, () => assert.throws(() => lower(type, json, "input.v"), (e: unknown) => e instanceof LowerError && message.test(e.message)));
}

test("arguments: an unknown parameter and a non-object input are refused; a missing option is none", () => {
  const tool = { fn: "f", params: [{ name: "a-b", json: "a_b", type: u8 }, { name: "c", json: "c", type: { kind: "option", inner: u8 } as WitType }] };
  assert.deepEqual(lowerArguments(tool, { a_b: 1 }), [1, undefined]);
  assert.throws(() => lowerArguments(tool, { a_b: 1, d: 2 }), /input\.d: no such parameter/);
  assert.throws(() => lowerArguments(tool, [1]), /expected a JSON object/);
  assert.throws(() => lowerArguments(tool, { ["__proto__"]: 1, a_b: 1 }), LowerError);
});

const lifting: Array<[string, WitType, unknown, unknown]> = [
  ["u64 in the safe range as a number", { kind: "primitive", name: "u64" }, 42n, 42],
  ["u64 past 2^53 as a decimal string", { kind: "primitive", name: "u64" }, 2n ** 60n, "1152921504606846976"],
  ["f64 NaN as null", { kind: "primitive", name: "f64" }, Number.NaN, null],
  ["record: camel fields to snake keys, none as null", point, { xPos: 3, note: undefined }, { x_pos: 3, note: null }],
  ["flags as names", style, { bold: true, italicText: false }, ["bold"]],
  ["nested option", nested, { tag: "some", val: undefined }, { some: null }],
  ["result", outcome, { tag: "err", val: "bad" }, { err: "bad" }],
  ["list<u8> as base64", bytes, new Uint8Array([0, 1, 255]), "AAH/"],
  ["typed array of u32 as numbers", { kind: "list", element: u32 }, new Uint32Array([1, 2]), [1, 2]],
];

for (const [label, type, js, json] of lifting) {
  test(`lift ${label}`, () => assert.deepEqual(lift(type, js), json));
}

test("lift refuses a guest value that breaks its own type", () => {
  assert.throws(() => lift(color, "purple"), /not a WIT enum/);
  assert.throws(() => lift(shape, { tag: "square" }), /not a WIT variant/);
  assert.throws(() => lift({ kind: "tuple", items: [u8] }, [1, 2]), /not a WIT tuple/);
  assert.deepEqual(lift(color, "red"), "red");
});
