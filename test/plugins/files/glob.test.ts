import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { callErr, callOk, filesPlugin, instantiate } from "./harness.js";

type GlobToRegExp = (glob: string) => RegExp;

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

describe("files plugin: glob matcher", () => {
  let globToRegExp: GlobToRegExp;
  before(async () => {
    globToRegExp = (await instantiate("plugins/files/src/glob-to-regexp.ts", {}))["globToRegExp"] as GlobToRegExp;
  });

  for (const [glob, path, expected] of MATCHER_CASES) {
    it(`${glob} ${expected ? "matches" : "does not match"} ${path}`, () => {
      assert.equal(globToRegExp(glob).test(path), expected, `${glob} → ${globToRegExp(glob).source}`);
    });
  }

  it("throws a SyntaxError for a range the engine refuses", () => {
    assert.throws(() => globToRegExp("[z-a]"), SyntaxError);
  });
});

const TREE = {
  "/work/README.md": "# r",
  "/work/src/main.ts": "",
  "/work/src/util.js": "",
  "/work/src/lib/deep.ts": "",
  "/work/src/lib/deep.test.ts": "",
  "/work/test/a.test.ts": "",
  "/work/node_modules/dep/index.ts": "",
  "/work/.git/config": "",
  "/ref/docs/guide.md": "",
};

describe("files plugin: glob", () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["src/**/*.ts", {}, ["/work/src/main.ts", "/work/src/lib/deep.test.ts", "/work/src/lib/deep.ts"]],
    ["*.md", {}, ["/work/README.md"]],
    ["**/*.test.ts", {}, ["/work/src/lib/deep.test.ts", "/work/test/a.test.ts"]],
    ["**/*.{js,md}", {}, ["/work/README.md", "/work/src/util.js"]],
    ["*/*.ts", {}, ["/work/src/main.ts", "/work/test/a.test.ts"]],
    ["lib/*.ts", { path: "/work/src" }, ["/work/src/lib/deep.test.ts", "/work/src/lib/deep.ts"]],
    ["/ref/**/*.md", {}, ["/ref/docs/guide.md"]],
    ["node_modules/**/*.ts", {}, ["/work/node_modules/dep/index.ts"]],
    ["**/config", {}, []],
    [".git/*", {}, ["/work/.git/config"]],
  ];
  for (const [pattern, extra, files] of cases) {
    it(`finds ${pattern}${extra["path"] === undefined ? "" : ` below ${String(extra["path"])}`}`, async () => {
      const { tools } = await filesPlugin({ files: TREE });
      const result = callOk(tools, "glob", { pattern, ...extra });
      assert.deepEqual(result["files"], files);
      assert.equal(result["truncated"], false);
    });
  }

  it("walks only below the pattern's plain prefix, and no deeper than it needs", async () => {
    const { tools, fs } = await filesPlugin({ files: TREE });
    callOk(tools, "glob", { pattern: "src/*.ts" });
    assert.deepEqual(fs.calls, ["mounts", "listDir /work/src"]);
  });

  it("caps results at limit and says so", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    const result = callOk(tools, "glob", { pattern: "**/*.ts", limit: 2 });
    assert.deepEqual(result["files"], ["/work/src/main.ts", "/work/src/lib/deep.test.ts"]);
    assert.equal(result["truncated"], true);
  });

  it("skips a directory it may not list, names it, and goes on", async () => {
    const { tools } = await filesPlugin({ files: { ...TREE, "/work/.ssh/id_rsa.ts": "" } });
    const result = callOk(tools, "glob", { pattern: "**/*.ts" });
    assert.ok((result["files"] as string[]).includes("/work/test/a.test.ts"));
    assert.deepEqual(result["unreadable"], ["/work/.ssh (denied: sensitive-name)"]);
    assert.equal(result["unreadable_count"], 1);
  });

  it("fails with the host's error when the base itself cannot be listed", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    assert.equal(callErr(tools, "glob", { pattern: "nope/**/*.ts" }).tag, "not-found");
    assert.equal(callErr(tools, "glob", { pattern: "*", path: "/etc" }).tag, "denied");
  });

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ pattern: "[z-a]" }, /pattern "\[z-a\]": is not a valid glob/],
    [{ pattern: "" }, /"pattern": names no files/],
    [{ pattern: "*", limit: 0 }, /"limit": must be between 1 and 5000/],
    [{ pattern: 7 }, /"pattern": must be string, got integer/],
  ];
  for (const [input, message] of bad) {
    it(`rejects ${JSON.stringify(input)} as invalid-input`, async () => {
      const { tools } = await filesPlugin({ files: TREE });
      const error = callErr(tools, "glob", input);
      assert.equal(error.tag, "invalid-input");
      assert.match(error.val as string, message);
    });
  }
});
