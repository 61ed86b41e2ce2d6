import assert from "node:assert/strict";
import { test } from "node:test";
import { argsFromJson, callInput, parseCallOutput, parseDescribe, toJson } from "../../runtime/sandbox/extism-shapes.js";

const text = (t: string) => ({ type: "text", text: t });

const outputs: Array<{ name: string; output: string | undefined; expected: ReturnType<typeof parseCallOutput> }> = [
  { name: "control: one text item", output: JSON.stringify({ content: [text('{"a":1}')] }), expected: { ok: true, value: '{"a":1}' } },
  { name: "control: several text items are joined; other items skipped", output: JSON.stringify({ content: [text("a"), { type: "image", data: "AA==" }, text("b")] }), expected: { ok: true, value: "a\nb" } },
  { name: "isError is failed with the text", output: JSON.stringify({ content: [text("no such file")], isError: true }), expected: { ok: false, error: { tag: "failed", val: "no such file" } } },
  {
    name: "isError with a well-formed toolError passes a denial on",
    output: JSON.stringify({ content: [text("x")], isError: true, toolError: { tag: "denied", val: { capability: "fs.read", reason: "outside-mount", message: "m" } } }),
    expected: { ok: false, error: { tag: "denied", val: { capability: "fs.read", reason: "outside-mount", message: "m" } } },
  },
  { name: "a malformed toolError falls back to failed", output: JSON.stringify({ content: [text("x")], isError: true, toolError: { tag: "denied", val: "m" } }), expected: { ok: false, error: { tag: "failed", val: "x" } } },
  { name: "an unknown toolError tag falls back to failed", output: JSON.stringify({ content: [text("x")], isError: true, toolError: { tag: "trap", val: "m" } }), expected: { ok: false, error: { tag: "failed", val: "x" } } },
  { name: "toolError without isError is ignored", output: JSON.stringify({ content: [text("x")], toolError: { tag: "failed", val: "m" } }), expected: { ok: true, value: "x" } },
  { name: "no output", output: undefined, expected: { ok: false, error: { tag: "failed", val: "the plugin returned no output" } } },
  { name: "not JSON", output: "hello", expected: { ok: false, error: { tag: "failed", val: 'the plugin\'s output is not JSON (expected {"content": [...]})' } } },
  { name: "no content list", output: JSON.stringify({ result: 1 }), expected: { ok: false, error: { tag: "failed", val: 'the plugin\'s output has no content list (expected {"content": [...]})' } } },
  { name: "no text item", output: JSON.stringify({ content: [{ type: "image" }] }), expected: { ok: false, error: { tag: "failed", val: "the plugin's output has no text content" } } },
];
for (const row of outputs) {
  test(`call output: ${row.name}`, () => assert.deepEqual(parseCallOutput(row.output), row.expected));
}

test("call input is an MCP tools/call params object; input that is not JSON is refused", () => {
  assert.equal(callInput("echo", '{"a":[1]}'), '{"params":{"name":"echo","arguments":{"a":[1]}}}');
  assert.equal(callInput("echo", ""), '{"params":{"name":"echo","arguments":{}}}');
  assert.equal(callInput("echo", "{nope"), undefined);
});

const defaults = { capabilities: ["fs.read", "log"], risks: { read: "safe", write: "guarded" } as const };

test("describe: capabilities default to the manifest's; risk comes from plugin.json, unsafe when undeclared", () => {
  const tools = parseDescribe(
    JSON.stringify({
      tools: [
        { name: "read", description: "r", inputSchema: { type: "object" } },
        { name: "write", description: "w", inputSchema: { type: "object" }, capabilities: ["fs.write"], risk: "safe" },
        { name: "other", description: "o", inputSchema: { type: "object" }, capabilities: [] },
      ],
    }),
    defaults,
  );
  assert.deepEqual(tools, [
    { name: "read", description: "r", inputSchema: '{"type":"object"}', capabilities: ["fs.read", "log"], risk: "safe" },
    { name: "write", description: "w", inputSchema: '{"type":"object"}', capabilities: ["fs.write"], risk: "guarded" },
    { name: "other", description: "o", inputSchema: '{"type":"object"}', capabilities: [], risk: "unsafe" },
  ]);
});

const badDescribes: Array<[string, unknown, RegExp]> = [
  ["not an object", [], /expected \{"tools"/],
  ["a tool without a name", { tools: [{ description: "d", inputSchema: {} }] }, /tools\[0\]\.name/],
  ["a schema given as text", { tools: [{ name: "a", description: "d", inputSchema: "{}" }] }, /tools\[0\]\.inputSchema: expected a JSON Schema object/],
  ["capabilities that are not strings", { tools: [{ name: "a", description: "d", inputSchema: {}, capabilities: [1] }] }, /tools\[0\]\.capabilities/],
];
for (const [name, value, problem] of badDescribes) {
  test(`describe refused: ${name}`, () => assert.throws(() => parseDescribe(JSON.stringify(value), defaults), problem));
}

test("host-call params from JSON: bytes, none, u64 fields; a __proto__ key stays data", () => {
  const [request] = argsFromJson([{ method: "GET", url: "https://x", headers: [], body: { $bytes: "aGk=" }, timeoutMs: 5, maxBytes: 1024, followRedirects: null }], [[0, "maxBytes"]]) as [Record<string, unknown>];
  assert.ok(request.body instanceof Uint8Array);
  assert.equal(Buffer.from(request.body).toString(), "hi");
  assert.equal(request.maxBytes, 1024n);
  assert.equal(request.timeoutMs, 5);
  assert.equal(request.followRedirects, undefined);
  const [polluted] = argsFromJson([JSON.parse('{"__proto__":{"admin":true}}')]) as [Record<string, unknown>];
  assert.equal(Object.getPrototypeOf(polluted), Object.prototype);
  assert.ok(Object.hasOwn(polluted, "__proto__"));
  // Control: a negative or fractional number at a u64 path is left for the proxy to refuse.
  assert.equal((argsFromJson([{ maxBytes: -1 }], [[0, "maxBytes"]]) as [Record<string, unknown>])[0].maxBytes, -1);
});

test("host-call results to JSON: bytes as base64, bigint as number, none as null", () => {
  assert.deepEqual(toJson({ data: new Uint8Array([104, 105]), size: 3n, missing: undefined, list: [1n, undefined] }), { data: { $bytes: "aGk=" }, size: 3, missing: null, list: [1, null] });
  assert.equal(toJson(undefined), null);
  const view = Buffer.from("xxhixx").subarray(2, 4);
  assert.deepEqual(toJson(view), { $bytes: "aGk=" });
});
