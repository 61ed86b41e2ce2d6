/**
 * Path globs of the bulk walk: the glob language (moved here from the files plugin, whose
 * globs the host now matches), and the gitignore-like rule of what a glob is matched against.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compilePathGlob, globToRegExp, MAX_GLOB_CHARS } from "../../../host-proxies/fs/path-glob.js";

// [glob, path, matches]
const MATCHER_CASES: [string, string, boolean][] = [
  ["*.ts", "a.ts", true],
  ["*.ts", ".hidden.ts", true],
  ["*.ts", "src/a.ts", false],
  ["*.ts", "a.tsx", false],
  ["*", "a", true],
  ["*", "a/b", false],
  ["src/*.ts", "src/a.ts", true],
  ["src/*.ts", "src/lib/a.ts", false],
  ["src/**/*.ts", "src/a.ts", true],
  ["src/**/*.ts", "src/lib/deep/a.ts", true],
  ["src/**/*.ts", "srcx/a.ts", false],
  ["src/**/*.ts", "lib/src/a.ts", false],
  ["**/*.ts", "a.ts", true],
  ["**/*.ts", "x/y/z.ts", true],
  ["**", "x/y/z", true],
  ["src/**", "src/a", true],
  ["src/**", "src/a/b", true],
  ["src/**", "other/a", false],
  ["a/**/b", "a/b", true],
  ["a/**/b", "a/x/y/b", true],
  ["a/**/b", "a/xb", false],
  ["a**b", "axxb", true],
  ["a**b", "ax/xb", false],
  ["?.md", "a.md", true],
  ["?.md", "ab.md", false],
  ["?", "/", false],
  ["[abc].txt", "b.txt", true],
  ["[abc].txt", "d.txt", false],
  ["[a-c]x", "bx", true],
  ["[!a-c]x", "dx", true],
  ["[!a-c]x", "ax", false],
  ["[^a-c]x", "ax", false],
  ["a[!x]b", "a/b", false],
  ["a[/]b", "a/b", false],
  ["[]]", "]", true],
  ["[a-]", "-", true],
  ["[\\d]", "d", true],
  ["[\\d]", "5", false],
  ["*.{ts,js}", "a.ts", true],
  ["*.{ts,js}", "a.js", true],
  ["*.{ts,js}", "a.md", false],
  ["{src,test}/**/*.ts", "test/x/y.ts", true],
  ["{src,test}/**/*.ts", "bench/y.ts", false],
  ["{a,b{c,d}}", "bd", true],
  ["{a,b{c,d}}", "b", false],
  ["{*.md,docs/*}", "docs/x", true],
  ["{x,}y", "y", true],
  ["{unclosed", "{unclosed", true],
  ["[unclosed", "[unclosed", true],
  ["a.b", "a.b", true],
  ["a.b", "axb", false],
  ["(x)+$^|", "(x)+$^|", true],
  ["\\*", "*", true],
  ["\\*", "a", false],
  ["\\{a,b}", "{a,b}", true],
];

for (const [glob, path, expected] of MATCHER_CASES) {
  test(`path glob: ${glob} ${expected ? "matches" : "does not match"} ${path}`, () => {
    assert.equal(globToRegExp(glob).test(path), expected, `${glob} → ${globToRegExp(glob).source}`);
  });
}

test("path glob: a range the engine refuses is a SyntaxError", () => {
  assert.throws(() => globToRegExp("[z-a]"), SyntaxError);
});

// [glob, relative path, matches]: no `/` → the entry's name at any depth; a `/` (leading or inner) → the path.
const WHERE: [string, string, boolean][] = [
  ["*.ts", "a.ts", true],
  ["*.ts", "src/lib/b.ts", true],
  ["/*.ts", "a.ts", true],
  ["/*.ts", "src/b.ts", false],
  ["src/*.ts", "src/b.ts", true],
  ["src/*.ts", "x/src/b.ts", false],
  ["node_modules", "a/node_modules", true],
  ["/node_modules", "a/node_modules", false],
];
for (const [glob, relative, expected] of WHERE) {
  test(`path glob: ${glob} is matched ${expected ? "" : "not "}at ${relative}`, () => {
    const name = relative.slice(relative.lastIndexOf("/") + 1);
    assert.equal(compilePathGlob(glob).matches(relative, name), expected);
  });
}

test("path glob: empty, root-only and overlong globs are refused; control: an ordinary one compiles", () => {
  assert.throws(() => compilePathGlob(""), /must not be empty/);
  assert.throws(() => compilePathGlob("///"), /names nothing below the root/);
  assert.throws(() => compilePathGlob("a".repeat(MAX_GLOB_CHARS + 1)), /longer than/);
  assert.equal(compilePathGlob("a".repeat(MAX_GLOB_CHARS)).matches("x", "a".repeat(MAX_GLOB_CHARS)), true);
});
