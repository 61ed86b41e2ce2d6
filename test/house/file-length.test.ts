/**
 * No hand-written source file over 300 lines (STYLE.md): a file that grows past it is split by
 * what it does before it lands. Generated files (their first lines say GENERATED) are exempt:
 * their length is the WIT's.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const MAX_LINES = 300;
const ROOTS = ["runtime", "host-proxies", "plugins", "bench", "bin", "test"];
const SKIP_DIRS = new Set(["node_modules", "dist", "fixtures"]);

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) found.push(...sourceFiles(path));
    } else if (/\.(ts|js|mjs)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** Lines of each file over the limit, generated files left out. */
export function overLong(files: Array<{ name: string; text: string }>, max = MAX_LINES): string[] {
  return files
    .filter((f) => !/\bGENERATED\b/.test(f.text.split("\n", 5).join("\n")))
    .map((f) => ({ name: f.name, lines: f.text.split("\n").length - (f.text.endsWith("\n") ? 1 : 0) }))
    .filter((f) => f.lines > max)
    .map((f) => `${f.name}: ${f.lines} lines`);
}

test(`no hand-written source file is over ${MAX_LINES} lines`, () => {
  const files = ROOTS.flatMap((root) => sourceFiles(join(PROJECT_ROOT, root))).map((path) => ({ name: relative(PROJECT_ROOT, path), text: readFileSync(path, "utf8") }));
  assert.ok(files.length > 500, `only ${files.length} source files read`);
  assert.deepEqual(overLong(files), [], "split these by what they do");
});

test("the check sees what it checks: a long file is found, a generated one and one at the limit are not", () => {
  const lines = (n: number, first = "x") => [first, ...Array.from({ length: n - 1 }, () => "x")].join("\n") + "\n";
  assert.deepEqual(
    overLong([
      { name: "long.ts", text: lines(MAX_LINES + 1) },
      { name: "limit.ts", text: lines(MAX_LINES) },
      { name: "generated.d.ts", text: lines(MAX_LINES + 50, "/** GENERATED from wit/ */") },
    ]),
    [`long.ts: ${MAX_LINES + 1} lines`],
  );
});
