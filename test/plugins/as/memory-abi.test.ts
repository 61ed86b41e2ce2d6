/**
 * The AssemblyScript memory plugin against `clawhive:host/memory` and `clawhive:plugin/tools`, byte
 * for byte through jco's glue: every argument lowered, every field of a result lifted, every error
 * case kept, and memory flat over a long session's calls.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent, type LoadedComponent } from "./component.js";

const MEMORY_PLUGIN = join(PROJECT_ROOT, "plugins", "memory");

interface Host {
  calls: unknown[][];
  /** What the next call answers: a value, or a host-error variant to throw. */
  next: { value?: unknown; error?: unknown };
}

async function memoryPlugin(): Promise<LoadedComponent & { host: Host }> {
  const host: Host = { calls: [], next: {} };
  const answer = (): unknown => {
    if (host.next.error !== undefined) throw host.next.error;
    return host.next.value;
  };
  const loaded = await loadComponent(MEMORY_PLUGIN, {
    "clawhive:host/memory": {
      search: (query: string, options: unknown) => (host.calls.push(["search", query, options]), answer()),
      write: (text: string, options: unknown) => (host.calls.push(["write", text, options]), answer()),
    },
  });
  return { ...loaded, host };
}

function callErr(plugin: LoadedComponent, name: string, input: string): { tag: string; val: unknown } {
  try {
    plugin.tools.call(name, input);
  } catch (e) {
    return (e as { payload: { tag: string; val: unknown } }).payload;
  }
  assert.fail(`${name} ${input}: expected a tool error`);
}

const SCOPE = { type: "string", description: "agent (default: this agent's own memory, and its parent agents'), user, or project/<name>" };

test("describe: the tools' names, descriptions, schemas, capabilities and risks as the TypeScript plugin gave them", async () => {
  const plugin = await memoryPlugin();
  const described = plugin.tools.describe();
  assert.deepEqual(described.map((d) => [d.name, d.capabilities, d.risk]), [["recall", ["memory"], "safe"], ["remember", ["memory"], "guarded"]]);
  assert.equal(described[0]!.inputSchema, JSON.stringify({
    type: "object",
    properties: { query: { type: "string", description: "What to look for, in plain words" }, scope: SCOPE, k: { type: "integer", description: "How many hits, 1 to 20 (default 5)" } },
    required: ["query"],
    additionalProperties: false,
  }));
  assert.equal(described[1]!.inputSchema, JSON.stringify({
    type: "object",
    properties: { text: { type: "string", description: "The note, in Markdown (at most 32 KiB)" }, title: { type: "string", description: "A short title (default: the first heading or line)" }, scope: SCOPE },
    required: ["text"],
    additionalProperties: false,
  }));
  assert.match(described[0]!.description, /^Search long-term memory for notes relevant to a question/);
  assert.match(described[1]!.description, /Do not store secrets\. A person may have to approve the write\.$/);
  // Describe twice: the second answer is the first's (post-return freed the first, nothing else).
  assert.deepEqual(plugin.tools.describe(), described);
  assert.ok(plugin.bytes < 256 * 1024, `component of ${plugin.bytes} bytes`);
});

test("memory.search: query, scope and k lowered as given; none stays none", async () => {
  const plugin = await memoryPlugin();
  plugin.host.next = { value: [] };
  const cases: Array<[Record<string, unknown>, unknown[]]> = [
    [{ query: "plain" }, ["search", "plain", { scope: undefined, k: undefined }]],
    [{ query: "å ∑ 🦀 \"quoted\"\n", scope: "project/alpha", k: 3 }, ["search", "å ∑ 🦀 \"quoted\"\n", { scope: "project/alpha", k: 3 }]],
    [{ query: "", scope: "", k: 0 }, ["search", "", { scope: "", k: 0 }]],
    [{ query: "x".repeat(100_000), k: 4294967295 }, ["search", "x".repeat(100_000), { scope: undefined, k: 4294967295 }]],
  ];
  for (const [input, expected] of cases) {
    plugin.host.calls.length = 0;
    assert.deepEqual(JSON.parse(plugin.tools.call("recall", JSON.stringify(input))), { hits: [] });
    assert.deepEqual(plugin.host.calls, [expected], JSON.stringify(input).slice(0, 80));
  }
});

test("memory.search: every field of every hit lifted, in order", async () => {
  const plugin = await memoryPlugin();
  const hit = (i: number) => ({
    episodeId: `ep-${i}`,
    title: `Tïtle ${i} 🦀`,
    headingPath: i === 0 ? [] : ["# A", `## B ${i}`, "\u0000\u001f\"\\"],
    text: `line one\nline two ${i}\t"q"`,
    score: i === 0 ? 0.1234567890123 : -2.5e-7,
    untrusted: i % 2 === 1,
    source: "tool",
    partition: `project/p${i}`,
    createdAt: BigInt(Date.UTC(2026, 11, 7, 11, 21, 31, i)),
  });
  plugin.host.next = { value: [hit(0), hit(1), hit(2)] };
  const out = JSON.parse(plugin.tools.call("recall", '{"query":"q"}')) as { hits: unknown[] };
  assert.deepEqual(out.hits, [0, 1, 2].map((i) => {
    const h = hit(i);
    return { episode_id: h.episodeId, title: h.title, heading_path: h.headingPath, text: h.text, score: h.score, untrusted: h.untrusted, source: h.source, partition: h.partition, created_at: new Date(Number(h.createdAt)).toISOString() };
  }));
});

test("memory.write: text, title and scope lowered; the new id returned", async () => {
  const plugin = await memoryPlugin();
  const cases: Array<[Record<string, unknown>, unknown[]]> = [
    [{ text: "# Note\nbody" }, ["write", "# Note\nbody", { title: undefined, scope: undefined }]],
    [{ text: "ünïcode 🦀", title: "T", scope: "user" }, ["write", "ünïcode 🦀", { title: "T", scope: "user" }]],
    [{ text: "t", scope: "project/x" }, ["write", "t", { title: undefined, scope: "project/x" }]],
  ];
  for (const [input, expected] of cases) {
    plugin.host.calls.length = 0;
    plugin.host.next = { value: `id-${plugin.host.calls.length}-ü` };
    assert.deepEqual(JSON.parse(plugin.tools.call("remember", JSON.stringify(input))), { episode_id: "id-0-ü" });
    assert.deepEqual(plugin.host.calls, [expected]);
  }
});

const HOST_ERRORS: Array<[string, unknown, { tag: string; val: unknown }]> = [
  ["denied keeps its record", { tag: "denied", val: { capability: "memory", reason: "scope-not-allowed", message: "scope user: not granted" } }, { tag: "denied", val: { capability: "memory", reason: "scope-not-allowed", message: "scope user: not granted" } }],
  ["not-found stays not-found", { tag: "not-found", val: "no such scope" }, { tag: "not-found", val: "no such scope" }],
  ["invalid-input stays invalid-input", { tag: "invalid-input", val: "memory.search: k is 21; ask for 1 to 20 hits" }, { tag: "invalid-input", val: "memory.search: k is 21; ask for 1 to 20 hits" }],
  ["io becomes failed", { tag: "io", val: "store unavailable ✗" }, { tag: "failed", val: "store unavailable ✗" }],
];

test("a host error of each case becomes the tool error of the same meaning, never a trap; control: the next call succeeds", async () => {
  const plugin = await memoryPlugin();
  for (const [label, thrown, expected] of HOST_ERRORS) {
    for (const [tool, input] of [["recall", '{"query":"q"}'], ["remember", '{"text":"t"}']] as const) {
      plugin.host.next = { error: thrown };
      assert.deepEqual(callErr(plugin, tool, input), expected, `${tool}: ${label}`);
      plugin.host.next = { value: tool === "recall" ? [] : "ok-id" };
      assert.doesNotThrow(() => plugin.tools.call(tool, input), `${tool} after ${label}`);
    }
  }
});

const deep = (n: number) => `{"query":"q","x":${"[".repeat(n)}${"]".repeat(n)}}`;

// Input the model or a client sends: each bad one is an invalid-input error naming what is wrong,
// with a passing control beside it.
const INPUTS: Array<[string, string, string, RegExp | null]> = [
  ["not JSON", "recall", "{nope", /^input: is not valid JSON: /],
  ["truncated", "recall", '{"query":"q"', /^input: is not valid JSON: /],
  ["trailing text", "recall", '{"query":"q"} x', /^input: is not valid JSON: Unexpected non-whitespace/],
  ["a raw control character in a string", "recall", '{"query":"a\u0001"}', /^input: is not valid JSON: Bad control character/],
  ["a bad escape", "recall", '{"query":"\\x"}', /^input: is not valid JSON: Bad escaped character/],
  ["a short unicode escape", "recall", '{"query":"\\u12"}', /^input: is not valid JSON: Bad Unicode escape/],
  ["a leading zero... then digits", "recall", '{"query":"q","k":01}', /^input: is not valid JSON: /],
  ["a bare minus", "recall", '{"query":"q","k":-}', /^input: is not valid JSON: No number after minus sign/],
  ["nested deeper than 64", "recall", deep(64), /^input: is not valid JSON: nested deeper than 64 levels/],
  ["control: nested 63 deep parses (then the unknown field is named)", "recall", deep(63), /^input field "x": is not a field of this tool \(fields: query, scope, k\)$/],
  ["an array", "recall", "[]", /^input: must be a JSON object, got array$/],
  ["a string", "recall", '"q"', /^input: must be a JSON object, got string$/],
  ["null", "recall", "null", /^input: must be a JSON object, got null$/],
  ["missing required", "recall", "{}", /^input field "query": is required$/],
  ["wrong type", "recall", '{"query":42}', /^input field "query": must be string, got integer$/],
  ["a fraction for an integer", "recall", '{"query":"q","k":1.5}', /^input field "k": must be integer, got number$/],
  ["a negative k", "recall", '{"query":"q","k":-1}', /^k: expected a whole number from 1 to 20$/],
  ["an unknown field", "remember", '{"text":"t","tags":[]}', /^input field "tags": is not a field of this tool \(fields: text, title, scope\)$/],
  ["an unknown tool", "forget", "{}", /^tool "forget": this plugin has no such tool \(tools: recall, remember\)$/],
  ["control: escapes and surrogate pairs decode", "remember", '{"text":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e5\\ud83e\\udd80"}', null],
  ["control: whitespace everywhere, 1e0 is an integer", "recall", ' \r\n\t{ "query" : "q" , "k" : 1e0 } ', null],
  ["control: a repeated key keeps the last value", "recall", '{"query":1,"query":"q"}', null],
];

test("bad input is a tool error naming the problem, never a trap; controls pass", async () => {
  const plugin = await memoryPlugin();
  for (const [label, tool, input, expected] of INPUTS) {
    plugin.host.next = { value: tool === "recall" ? [] : "id" };
    plugin.host.calls.length = 0;
    if (expected === null) {
      assert.doesNotThrow(() => plugin.tools.call(tool, input), label);
      continue;
    }
    const error = callErr(plugin, tool, input);
    assert.equal(error.tag, tool === "forget" ? "not-found" : "invalid-input", label);
    assert.match(String(error.val), expected, label);
    assert.deepEqual(plugin.host.calls, [], `${label}: no host call is made`);
  }
  plugin.host.calls.length = 0;
  plugin.host.next = { value: "id" };
  plugin.tools.call("remember", '{"text":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e5\\ud83e\\udd80"}');
  assert.deepEqual(plugin.host.calls, [["write", '"\\/\b\f\n\r\tå🦀', { title: undefined, scope: undefined }]]);
  plugin.host.calls.length = 0;
  plugin.host.next = { value: [] };
  plugin.tools.call("recall", '{"query":1,"query":"q"}');
  assert.equal(plugin.host.calls[0]![1], "q");
});

test("10,000 calls on one instance keep its memory flat (results freed in post-return, host blocks freed once read)", async () => {
  const plugin = await memoryPlugin();
  const hits = Array.from({ length: 5 }, (_, i) => ({ episodeId: `e${i}`, title: "t", headingPath: ["# h"], text: "x".repeat(1000), score: 1, untrusted: false, source: "model", partition: "p", createdAt: 0n }));
  // One call at a time, the three kinds in turn: a result with hits, a write, an error.
  const round = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      if (i % 3 === 0) {
        plugin.host.next = { value: hits };
        plugin.tools.call("recall", '{"query":"some words to look for"}');
      } else if (i % 3 === 1) {
        plugin.host.next = { value: "id" };
        plugin.tools.call("remember", `{"text":"${"n".repeat(500)}"}`);
      } else {
        plugin.host.next = { error: { tag: "io", val: "down" } };
        callErr(plugin, "recall", '{"query":"q"}');
      }
    }
  };
  round(0, 2_000);
  const settled = plugin.memoryBytes();
  round(2_000, 10_000);
  assert.equal(plugin.memoryBytes(), settled, `memory grew from ${settled} to ${plugin.memoryBytes()} bytes`);
});
