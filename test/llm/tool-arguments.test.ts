/** A model's tool arguments: JSON past the input limits is the model's invalid input, never parsed. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { toolUseFromRaw } from "../../runtime/llm/tool-arguments.js";

const call = { id: "t1", name: "probe__echo" };
const cases: Array<[string, string, RegExp | undefined]> = [
  ["control: 60 deep", `{"a":${"[".repeat(60)}${"]".repeat(60)}}`, undefined],
  ["20,000 deep", `{"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}`, /^input\.a\[0\].*nested more than 64 levels deep/],
  ["control: 1,000 values", `{"a":[${Array(1_000).fill(0).join(",")}]}`, undefined],
  ["300,000 values", `{"a":[${Array(300_000).fill(0).join(",")}]}`, /more than 200000 values/],
  // The run refuses prototype keys, and audits that: here they pass as data.
  ["control: a __proto__ key is left to the run", '{"__proto__":{"x":1}}', undefined],
];
for (const [name, raw, error] of cases) {
  test(`tool arguments: ${name}`, () => {
    const block = toolUseFromRaw(call, raw);
    if (error === undefined) {
      assert.equal(block.input_error, undefined);
      assert.equal(typeof block.input, "object");
    } else {
      assert.match(block.input_error ?? "", error);
      assert.deepEqual(block.input, {});
      assert.ok((block.raw_input ?? "").length < 2_100, "the refused text is echoed back shortened");
    }
  });
}

test("a __proto__ key from the model stays an own data property", () => {
  const block = toolUseFromRaw(call, '{"__proto__":{"polluted":true}}');
  assert.ok(Object.hasOwn(block.input, "__proto__"));
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
});
