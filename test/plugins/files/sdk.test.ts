/**
 * The plugin SDK's `definePlugin` on its own, with tools written here (the files plugin's tests
 * cover it through real tools).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { FakeFs } from "./fake-host.js";
import { assertToolError, callErr, callOk, instantiate } from "./harness.js";
import type { ToolsExport } from "./harness.js";

interface ToolSpec {
  description: string;
  inputSchema: Record<string, unknown>;
  capabilities: string[];
  risk: string;
  run(input: Record<string, unknown>): unknown;
}

interface Sdk {
  definePlugin(plugin: { tools: Record<string, ToolSpec> }): ToolsExport;
  hostError(e: unknown): unknown;
}

const SCHEMA = {
  type: "object",
  properties: {
    n: { type: "number" },
    i: { type: "integer" },
    s: { type: "string", enum: ["a", "b"] },
    maybe: { type: ["string", "null"] },
    list: { type: "array" },
  },
  required: ["n"],
};

describe("plugin sdk: definePlugin", () => {
  let sdk: Sdk;
  before(async () => {
    sdk = (await instantiate("plugins/sdk/index.ts", new FakeFs().imports())) as unknown as Sdk;
  });

  function plugin(run: (input: Record<string, unknown>) => unknown): ToolsExport {
    return sdk.definePlugin({ tools: { t: { description: "a test tool", inputSchema: SCHEMA, capabilities: [], risk: "safe", run } } });
  }

  it("describes each tool with its schema as JSON text", () => {
    assert.deepEqual(plugin(() => null).describe(), [
      { name: "t", description: "a test tool", inputSchema: JSON.stringify(SCHEMA), capabilities: [], risk: "safe" },
    ]);
  });

  const typeCases: [string, Record<string, unknown>, string | undefined][] = [
    ["an integer where a number is asked", { n: 3 }, undefined],
    ["a fraction where an integer is asked", { n: 1, i: 1.5 }, 'input field "i": must be integer, got number'],
    ["a value outside the enum", { n: 1, s: "c" }, 'input field "s": must be one of "a", "b"'],
    ["null where a type list allows it", { n: 1, maybe: null }, undefined],
    ["a number where a type list does not allow it", { n: 1, maybe: 1 }, 'input field "maybe": must be string or null, got integer'],
    ["an object where an array is asked", { n: 1, list: {} }, 'input field "list": must be array, got object'],
    ["an unknown field when additional ones are allowed", { n: 1, extra: true }, undefined],
    ["a missing required field", {}, 'input field "n": is required'],
  ];
  for (const [what, input, message] of typeCases) {
    it(`${message === undefined ? "accepts" : "rejects"} ${what}`, () => {
      const tools = plugin((i) => i);
      if (message === undefined) assert.deepEqual(callOk(tools, "t", input), input);
      else assert.deepEqual(callErr(tools, "t", input), { tag: "invalid-input", val: message });
    });
  }

  const results: [string, unknown, string][] = [
    ["undefined as null", undefined, "null"],
    ["bigints as numbers", { size: 5n }, '{"size":5}'],
    ["bigints past 2^53 as strings", { size: 2n ** 64n }, '{"size":"18446744073709551616"}'],
  ];
  for (const [what, value, json] of results) {
    it(`writes ${what}`, () => {
      assert.equal(plugin(() => value).call("t", '{"n":1}'), json);
    });
  }

  const failures: [string, () => unknown, unknown][] = [
    ["a bare tool-error variant keeps its case", () => {
      throw { tag: "failed", val: "custom" };
    }, { tag: "failed", val: "custom" }],
    ["an Error becomes failed with its message", () => {
      throw new RangeError("out of range");
    }, { tag: "failed", val: "out of range" }],
    ["a promise is refused", () => Promise.resolve(1), { tag: "failed", val: "tool t: returned a promise; tools must be synchronous in the guest" }],
    ["a circular result is refused", () => {
      const a: Record<string, unknown> = {};
      a["self"] = a;
      return a;
    }, undefined],
    ["a value whose getters throw is still a tool-error", () => {
      throw Object.defineProperty({}, "tag", { get: () => { throw new Error("getter"); } });
    }, { tag: "failed", val: "the tool failed with an error that could not be read" }],
  ];
  for (const [what, run, expected] of failures) {
    it(`reports ${what}`, () => {
      const tools = plugin(run);
      try {
        tools.call("t", '{"n":1}');
        assert.fail("should have thrown");
      } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        assertToolError(e);
        if (expected !== undefined) assert.deepEqual(e, expected);
        else assert.equal(e.tag, "failed");
      }
    });
  }

  it("reads a host error from a ComponentError's payload or bare", () => {
    const payload = { tag: "not-found", val: "x" };
    assert.deepEqual(sdk.hostError({ payload }), payload);
    assert.deepEqual(sdk.hostError(payload), payload);
    assert.equal(sdk.hostError(new Error("x")), undefined);
    assert.equal(sdk.hostError({ payload: { tag: "nope", val: "x" } }), undefined);
  });
});
