import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callErr, callOk, filesPlugin } from "./harness.js";

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

  it("keeps its answer within 1 MiB of paths: long paths stop it, truncated; control: half of them", async () => {
    // 5,000 paths of 300 characters: 1.5 M characters.
    const files = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`/work/${String(i).padStart(294, "f")}`, ""]));
    const { tools } = await filesPlugin({ files });
    const all = callOk(tools, "glob", { pattern: "*", limit: 5000 });
    assert.equal(all["truncated"], true);
    const count = (all["files"] as string[]).length;
    assert.ok(count > 3000 && count < 3500, `${count}`);
    const half = callOk(tools, "glob", { pattern: "*[02468]", limit: 5000 });
    assert.deepEqual([half["truncated"], (half["files"] as string[]).length], [false, 2500]);
  });

  it("walks only below the pattern's plain prefix, and no deeper than it needs", async () => {
    const { tools, fs } = await filesPlugin({ files: TREE });
    callOk(tools, "glob", { pattern: "src/*.ts" });
    assert.deepEqual(fs.calls, ["mounts", "walk /work/src"]);
  });

  it("caps results at limit and says so", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    const result = callOk(tools, "glob", { pattern: "**/*.ts", limit: 2 });
    assert.deepEqual(result["files"], ["/work/src/main.ts", "/work/src/lib/deep.test.ts"]);
    assert.equal(result["truncated"], true);
  });

  it("never shows a sensitive directory's files, and goes on", async () => {
    const { tools } = await filesPlugin({ files: { ...TREE, "/work/.ssh/id_rsa.ts": "" } });
    const result = callOk(tools, "glob", { pattern: "**/*.ts" });
    assert.ok((result["files"] as string[]).includes("/work/test/a.test.ts"));
    assert.ok(!(result["files"] as string[]).some((f) => f.includes(".ssh")));
    // Control: the same walk without the sensitive directory returns the same files.
    const plain = await filesPlugin({ files: TREE });
    assert.deepEqual(result["files"], callOk(plain.tools, "glob", { pattern: "**/*.ts" })["files"]);
  });

  it("makes one host call for the whole walk, whatever the tree's size", async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 20; d++) for (let f = 0; f < 20; f++) files[`/work/d${d}/f${f}.ts`] = "";
    const { tools, fs } = await filesPlugin({ files });
    const result = callOk(tools, "glob", { pattern: "**/*.ts", limit: 5000 });
    assert.equal((result["files"] as string[]).length, 400);
    assert.deepEqual(fs.calls, ["mounts", "walk /work"]);
  });

  it("leaves out what exclude names, and the noisy directories unless the pattern names them", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    assert.deepEqual(callOk(tools, "glob", { pattern: "**/*.ts", exclude: ["lib"] })["files"], ["/work/src/main.ts", "/work/test/a.test.ts"]);
    assert.deepEqual(callOk(tools, "glob", { pattern: "**/index.ts" })["files"], []);
    // Control: named, node_modules is walked.
    assert.deepEqual(callOk(tools, "glob", { pattern: "node_modules/**/index.ts" })["files"], ["/work/node_modules/dep/index.ts"]);
  });

  it("fails with the host's error when the base itself cannot be listed", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    assert.equal(callErr(tools, "glob", { pattern: "nope/**/*.ts" }).tag, "not-found");
    assert.equal(callErr(tools, "glob", { pattern: "*", path: "/etc" }).tag, "denied");
  });

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ pattern: "[z-a]" }, /\[z-a\]" is not a valid glob/],
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
