/**
 * The direction of imports DESIGN.md "Rooms" sets, and no import cycles, checked on every test
 * run. What the code owes today is listed in `import-debt.json`: a new cycle or a new import
 * against the direction fails, and so does a listed one that is gone (strike it from the list),
 * so the debt only shrinks.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { cycles, forbidden, importGraph, ROOM_RULES as RULES } from "./_imports.js";


interface Debt {
  forbidden: string[];
  cycles: string[][];
}

const debt = JSON.parse(readFileSync(join(PROJECT_ROOT, "test", "house", "import-debt.json"), "utf8")) as Debt;
const graph = importGraph(PROJECT_ROOT, ["runtime", "host-proxies"]);

test("the import graph is read: every room's files and their imports", () => {
  assert.ok(graph.size > 300, `only ${graph.size} files read`);
  assert.ok(graph.get("runtime/runtime.ts")?.has("runtime/runs/run.ts"), "runtime.ts imports runs/run.ts");
});

test("no import runs against the direction of the rooms (beyond the listed debt)", () => {
  const found = forbidden(graph, RULES);
  const added = found.filter((f) => !debt.forbidden.includes(f));
  const gone = debt.forbidden.filter((f) => !found.includes(f));
  assert.deepEqual(added, [], `new imports against DESIGN.md "Rooms":\n${added.map((a) => `  ${a}: ${RULES.find((r) => a.startsWith(`${r.from}/`))?.why}`).join("\n")}`);
  assert.deepEqual(gone, [], "paid off: strike these from test/house/import-debt.json");
});

test("no import cycle (beyond the listed debt)", () => {
  const found = cycles(graph);
  // A cycle may shrink or split; a file that joins one, or a new one, is new debt.
  const added = found.filter((c) => !debt.cycles.some((listed) => c.every((file) => listed.includes(file))));
  const gone = debt.cycles.filter((listed) => !found.some((c) => c.every((file) => listed.includes(file))));
  assert.deepEqual(added.map((c) => c.join(" ")), [], "new import cycles, or files that joined a listed one (each line one cycle)");
  assert.deepEqual(gone, [], "paid off: strike these cycles from test/house/import-debt.json");
});

test("the checks see what they check: a forbidden import and a cycle made up here are found", () => {
  const made = new Map([
    ["host-proxies/x/a.ts", new Set(["runtime/policy/engine.ts"])],
    ["runtime/a.ts", new Set(["runtime/b.ts"])],
    ["runtime/b.ts", new Set(["runtime/a.ts"])],
    ["runtime/c.ts", new Set(["runtime/a.ts"])],
  ]);
  assert.deepEqual(forbidden(made, RULES), ["host-proxies/x/a.ts -> runtime/policy/engine.ts"]);
  assert.deepEqual(cycles(made), [["runtime/a.ts", "runtime/b.ts"]]);
});
