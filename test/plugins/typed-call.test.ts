/**
 * A componentized typed plugin (test/plugins/typed-kinds: one export per WIT type kind) installed
 * into a runtime and called as tools: arguments validated against the derived schema, lowered,
 * the result lifted; a `result` error is a tool error; a trap loses only that instance; a
 * Guarded typed function waits for a person; a describe/call plugin beside it works unchanged.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { buildComponent } from "../../runtime/plugins/build.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { writePackage } from "../helpers/plugin-packages.js";
import { defineTestAgent, tempDir, testRuntime } from "../helpers/runtime.js";

const KINDS = join(PROJECT_ROOT, "test", "plugins", "typed-kinds");
const TOOLS = ["add_small", "big", "floats", "chars", "bytes", "words", "maybe", "nested", "nothing", "checked", "unit_result", "origin", "boom", "shapes_describe_shape", "shapes_move_point"];

let runtime: Runtime;
let dispose: () => Promise<void>;
let agent: string;

before(async () => {
  ({ runtime, dispose } = await testRuntime());
  const built = await buildComponent(KINDS, { cacheDir: defaultBuildCacheDir() });
  // The fixture's own plugin.json: every export declared, shapes_move_point Guarded.
  await runtime.installPlugin(await writePackage(await tempDir(), "typed-kinds", JSON.parse(built.manifestText) as Record<string, unknown>, built.bytes));
  agent = await defineTestAgent(runtime, "typed-caller", { plugins: ["typed-kinds", "probe"] });
});
after(() => dispose());

async function call(tool: string, input: unknown) {
  const run = await runtime.startRun({ agent, task: `call ${tool}` });
  try {
    return await run.callTool(`typed-kinds.${tool}`, input);
  } finally {
    await run.end().catch(() => undefined);
  }
}

const good: Array<[string, unknown, unknown]> = [
  ["add_small", { a: 200, b: 100 }, 300],
  ["big", { a: "18446744073709551614", b: -5 }, ["18446744073709551615", -6]],
  ["floats", { a: 1.5, b: 2.25 }, 3.75],
  ["chars", { c: "😀", text: "ab" }, ["😀", "a", "b"]],
  ["bytes", { data: "AAEC" }, "//79"],
  ["bytes", { data: [1, 2, 3] }, "/v38"],
  ["words", { items: ["a", "b"], upper: true }, ["A", "B"]],
  ["maybe", { value: 3 }, "got 3"],
  ["maybe", {}, null],
  ["nested", { value: { some: null } }, { some: null }],
  ["nested", { value: { some: 4 } }, { some: 4 }],
  ["nested", { value: null }, null],
  ["nothing", {}, null],
  ["checked", { n: 5 }, 10],
  ["unit_result", { ok: true }, null],
  ["origin", { p: { left: 1, right_side: -2 } }, { left: 1, right_side: -2 }],
  ["origin", {}, { left: 0, right_side: 0 }],
  ["shapes_describe_shape", { s: { tag: "segment", val: [{ x: 1, y: 2 }, { x: 3, y: 4 }] }, fill: "dark-green", style: ["italic-text"] }, "italic dark-green segment (1,2)-(3,4)"],
  ["shapes_describe_shape", { s: { tag: "circle", val: 2 }, style: ["bold"] }, "bold unfilled circle r=2"],
];

for (const [tool, input, output] of good) {
  test(`typed call ${tool} ${JSON.stringify(input)}`, async () => {
    const outcome = await call(tool, input);
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    assert.deepEqual(outcome.status === "ok" ? outcome.output : undefined, output);
  });
}

const bad: Array<[string, unknown, RegExp]> = [
  ["add_small", { a: 256, b: 1 }, /must be <= 255/],
  ["add_small", { a: 1 }, /input\.b: is required/],
  ["add_small", { a: 1, b: 2, c: 3 }, /must NOT have additional properties/],
  ["big", { a: "1e3", b: 0 }, /must match pattern|must be integer/],
  ["big", { a: "18446744073709551616", b: 0 }, /input\.a: expected an integer from 0 to 18446744073709551615/],
  ["chars", { c: "ab", text: "" }, /must match pattern/],
  ["shapes_describe_shape", { s: { tag: "square" }, style: [] }, /input\.s\.val: is required|must match exactly one schema in oneOf|must be equal to constant/],
  ["shapes_describe_shape", { s: { tag: "circle", val: 1 }, fill: "green", style: [] }, /input\.fill: must be equal to one of the allowed values/],
  ["shapes_describe_shape", { s: { tag: "circle", val: 1 }, style: ["bold", "bold"] }, /must NOT have duplicate items/],
  ["origin", { p: { left: 1 } }, /input\.p\.right_side: is required/],
];

for (const [tool, input, message] of bad) {
  test(`typed call ${tool} refuses ${JSON.stringify(input)}`, async () => {
    const outcome = await call(tool, input);
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    assert.match(outcome.status === "error" ? outcome.error.message : "", message);
  });
}

test("a result's error case is a tool error carrying the error as JSON; the run goes on", async () => {
  const run = await runtime.startRun({ agent, task: "errors" });
  try {
    const failed = await run.callTool("typed-kinds.checked", { n: 500 });
    assert.equal(failed.status, "error");
    assert.match(failed.status === "error" ? failed.error.message : "", /\{"left":500,"right_side":-1\}/);
    const empty = await run.callTool("typed-kinds.shapes_describe_shape", { s: { tag: "empty" }, style: [] });
    assert.match(empty.status === "error" ? empty.error.message : "", /empty shape/);
    const ok = await run.callTool("typed-kinds.checked", { n: 7 });
    assert.deepEqual(ok.status === "ok" ? ok.output : ok, 14);
  } finally {
    await run.end();
  }
});

test("a trap fails that call only; the next call of the run gets a fresh instance", async () => {
  const run = await runtime.startRun({ agent, task: "trap" });
  try {
    const trapped = await run.callTool("typed-kinds.boom", {});
    assert.equal(trapped.status, "error");
    const after = await run.callTool("typed-kinds.add_small", { a: 1, b: 2 });
    assert.deepEqual(after.status === "ok" ? after.output : after, 3);
  } finally {
    await run.end();
  }
});

test("a Guarded typed function waits for a person; a Safe one beside it runs", async () => {
  const guarded = await call("shapes_move_point", { p: { x: 1, y: 2 }, dx: 1, dy: 1 });
  assert.equal(guarded.status, "approval_required");
  const safe = await call("add_small", { a: 1, b: 1 });
  assert.equal(safe.status, "ok");
});

test("control: a describe/call plugin in the same run works unchanged", async () => {
  const run = await runtime.startRun({ agent, task: "mixed" });
  try {
    const echo = await run.callTool("probe.echo", { hello: "world" });
    assert.equal(echo.status, "ok", JSON.stringify(echo));
    const typed = await run.callTool("typed-kinds.add_small", { a: 2, b: 2 });
    assert.deepEqual(typed.status === "ok" ? typed.output : typed, 4);
  } finally {
    await run.end();
  }
});

test("the installed tools carry the derived schema, named for the model", async () => {
  const plugin = runtime.plugins().find((p) => p.name === "typed-kinds");
  assert.ok(plugin);
  const info = await runtime.installer.registry.get("typed-kinds");
  const tool = info?.tools.find((t) => t.name === "shapes_move_point");
  assert.deepEqual((tool?.inputSchema as { required: string[] }).required, ["p", "dx", "dy"]);
  assert.equal(tool?.risk, "guarded");
  assert.deepEqual(info?.tools.map((t) => t.name).sort(), [...TOOLS].sort());
});
