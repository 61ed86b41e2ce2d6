import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callErr, callOk, filesPlugin } from "./harness.js";

const TREE = {
  "/work/README.md": "# Title\nTODO: write docs\n",
  "/work/src/main.ts": "export function main() {\n  // todo: more\n  return 1;\n}\n",
  "/work/src/lib/util.ts": "export const x = 1; // TODO\n",
  "/work/src/lib/util.js": "// TODO js\n",
  "/work/node_modules/dep/index.ts": "// TODO dep\n",
};

type Match = { file: string; line: number; text: string };

describe("files plugin: grep", () => {
  it("finds matches with file, line number and line text, in walk order", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    const result = callOk(tools, "grep", { pattern: "TODO" });
    assert.deepEqual(result["matches"], [
      { file: "/work/README.md", line: 2, text: "TODO: write docs" },
      { file: "/work/src/lib/util.js", line: 1, text: "// TODO js" },
      { file: "/work/src/lib/util.ts", line: 1, text: "export const x = 1; // TODO" },
    ]);
    assert.equal(result["truncated"], false);
    assert.equal(result["files_searched"], 4);
    assert.equal(result["path"], "/work");
  });

  it("ignores case when asked", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    const matches = callOk(tools, "grep", { pattern: "todo:", case_insensitive: true })["matches"] as Match[];
    assert.deepEqual(
      matches.map((m) => `${m.file}:${m.line}`),
      ["/work/README.md:2", "/work/src/main.ts:2"],
    );
  });

  const filters: [string, string[]][] = [
    ["*.ts", ["/work/src/lib/util.ts"]],
    ["*.{js,md}", ["/work/README.md", "/work/src/lib/util.js"]],
    ["src/**/*.js", ["/work/src/lib/util.js"]],
    ["node_modules/**", ["/work/node_modules/dep/index.ts"]],
  ];
  for (const [glob, files] of filters) {
    it(`filters files by the glob ${glob}`, async () => {
      const { tools } = await filesPlugin({ files: TREE });
      const matches = callOk(tools, "grep", { pattern: "TODO", glob })["matches"] as Match[];
      assert.deepEqual(matches.map((m) => m.file), files);
    });
  }

  it("searches one file when path is a file", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    const result = callOk(tools, "grep", { pattern: "^\\s+return", path: "src/main.ts" });
    assert.deepEqual(result["matches"], [{ file: "/work/src/main.ts", line: 3, text: "  return 1;" }]);
  });

  it("caps matches and sets truncated", async () => {
    const { tools } = await filesPlugin({ files: { "/work/many.txt": "hit\n".repeat(50) } });
    const result = callOk(tools, "grep", { pattern: "hit", max_matches: 10 });
    assert.equal((result["matches"] as Match[]).length, 10);
    assert.equal(result["truncated"], true);
    // Control: exactly at the cap is not truncated.
    const exact = callOk(tools, "grep", { pattern: "hit", max_matches: 50 });
    assert.equal((exact["matches"] as Match[]).length, 50);
    assert.equal(exact["truncated"], false);
  });

  it("caps at 100 matches by default", async () => {
    const { tools } = await filesPlugin({ files: { "/work/many.txt": "hit\n".repeat(150) } });
    const result = callOk(tools, "grep", { pattern: "hit" });
    assert.equal((result["matches"] as Match[]).length, 100);
    assert.equal(result["truncated"], true);
  });

  it("does not count a final line terminator as an empty line", async () => {
    const { tools } = await filesPlugin({ files: { "/work/a.txt": "one\r\ntwo\r\n" } });
    const matches = callOk(tools, "grep", { pattern: "^", path: "/work/a.txt" })["matches"] as Match[];
    assert.deepEqual(matches.map((m) => m.text), ["one", "two"]);
  });

  it("skips and counts binary, oversized and unreadable files", async () => {
    const { tools } = await filesPlugin({
      files: {
        "/work/a.txt": "needle\n",
        "/work/b.bin": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0]),
        "/work/big.txt": "needle\n".repeat(600_000),
        "/work/.env": "needle\n",
      },
    });
    const result = callOk(tools, "grep", { pattern: "needle" });
    assert.deepEqual(result["matches"], [{ file: "/work/a.txt", line: 1, text: "needle" }]);
    assert.deepEqual(result["skipped"], { binary: 1, too_large: 1, unreadable: 0, sensitive: 1, symlink: 0, hard_link: 0, special: 0 });
    assert.equal(result["unreadable"], undefined);
  });

  it("searches the whole tree in one host call", async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 20; d++) for (let f = 0; f < 20; f++) files[`/work/d${d}/f${f}.txt`] = f === 3 ? "x\nneedle\n" : "x\n";
    const { tools, fs } = await filesPlugin({ files });
    const result = callOk(tools, "grep", { pattern: "needle" });
    assert.equal((result["matches"] as Match[]).length, 20);
    assert.equal(result["files_searched"], 400);
    assert.deepEqual(fs.calls, ["mounts", "search /work"]);
  });

  it("adds context lines when asked, and only then", async () => {
    const { tools } = await filesPlugin({ files: { "/work/a.txt": "one\ntwo\nthree\nfour\nfive\n" } });
    const [match] = callOk(tools, "grep", { pattern: "three", context: 1 })["matches"] as Match[];
    assert.deepEqual(match, { file: "/work/a.txt", line: 3, text: "three", before: ["two"], after: ["four"] });
    const [lopsided] = callOk(tools, "grep", { pattern: "three", before_context: 2, after_context: 0 })["matches"] as Match[];
    assert.deepEqual(lopsided, { file: "/work/a.txt", line: 3, text: "three", before: ["one", "two"], after: [] });
    // Control: without context the match has the old shape.
    assert.deepEqual(callOk(tools, "grep", { pattern: "three" })["matches"], [{ file: "/work/a.txt", line: 3, text: "three" }]);
  });

  const cases: [string, Record<string, unknown>, string[]][] = [
    ["smart case, lower-case pattern: insensitive", { pattern: "todo", case: "smart" }, ["/work/README.md:2", "/work/src/main.ts:2", "/work/src/lib/util.js:1", "/work/src/lib/util.ts:1"]],
    ["smart case, upper-case pattern: sensitive", { pattern: "TODO:", case: "smart" }, ["/work/README.md:2"]],
    ["literal: metacharacters are text", { pattern: "x = 1;", literal: true }, ["/work/src/lib/util.ts:1"]],
    ["literal: a regex-looking pattern finds nothing", { pattern: "T.DO", literal: true }, []],
    ["exclude leaves a directory out", { pattern: "TODO", exclude: ["lib"] }, ["/work/README.md:2"]],
    ["per-file cap", { pattern: "o", max_matches_per_file: 1, glob: "main.ts" }, ["/work/src/main.ts:1"]],
  ];
  for (const [name, input, expected] of cases) {
    it(name, async () => {
      const { tools } = await filesPlugin({ files: TREE });
      const matches = callOk(tools, "grep", input)["matches"] as Match[];
      assert.deepEqual(matches.map((m) => `${m.file}:${m.line}`), expected);
    });
  }

  it("says which cap ended a truncated search", async () => {
    const { tools } = await filesPlugin({ files: { "/work/many.txt": "hit\n".repeat(5) } });
    const result = callOk(tools, "grep", { pattern: "hit", max_matches: 2 });
    assert.equal(result["stopped"], "max-matches");
    // Control: an untruncated search names no cap.
    assert.equal(callOk(tools, "grep", { pattern: "hit" })["stopped"], undefined);
  });

  it("keeps its answer within 1 MiB of text: wide lines with context stop at max-output", async () => {
    const { tools } = await filesPlugin({ files: { "/work/wide.txt": `${"x".repeat(4000)}\n`.repeat(300) } });
    const wide = callOk(tools, "grep", { pattern: "x", context: 10, max_line_length: 4096, max_matches: 1000 });
    assert.deepEqual([wide["truncated"], wide["stopped"]], [true, "max-output"]);
    const count = (wide["matches"] as Match[]).length;
    assert.ok(count > 0 && count < 300, `${count}`);
    // Well under the sandbox's 4 MiB result cap, which would otherwise refuse the whole answer.
    assert.ok(JSON.stringify(wide).length < 2 * 1024 * 1024);
    // Control: the same search with short lines returns every match.
    const narrow = callOk(tools, "grep", { pattern: "x", context: 10, max_line_length: 16, max_matches: 1000 });
    assert.deepEqual([narrow["truncated"], (narrow["matches"] as Match[]).length], [false, 300]);
  });

  it("cuts a long matching line to a window around the match", async () => {
    const line = `${"a".repeat(1000)}needle${"b".repeat(1000)}`;
    const { tools } = await filesPlugin({ files: { "/work/min.js": line } });
    const [match] = callOk(tools, "grep", { pattern: "needle" })["matches"] as Match[];
    assert.ok(match !== undefined);
    assert.ok(match.text.length <= 302);
    assert.ok(match.text.includes("needle"));
    assert.ok(match.text.startsWith("…") && match.text.endsWith("…"));
  });

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ pattern: "(" }, /^pattern "\(": is not a valid regular expression: /],
    [{ pattern: "[a-" }, /is not a valid regular expression/],
    [{ pattern: "x", case: "loud" }, /"case": must be one of/],
    [{ pattern: "x", case: "sensitive", case_insensitive: true }, /"case" and "case_insensitive": disagree/],
    [{ pattern: "x", context: 11 }, /"context": must be between 0 and 10/],
    [{ pattern: "x", max_matches: 0 }, /"max_matches": must be between 1 and 1000/],
    [{ pattern: "x", case_insensitive: 1 }, /"case_insensitive": must be boolean/],
  ];
  for (const [input, message] of bad) {
    it(`rejects ${JSON.stringify(input)} as invalid-input, before any host call`, async () => {
      const { tools, fs } = await filesPlugin({ files: TREE });
      const error = callErr(tools, "grep", input);
      assert.equal(error.tag, "invalid-input");
      assert.match(error.val as string, message);
      assert.deepEqual(fs.calls, []);
    });
  }

  it("passes on the host's refusal of a bad glob", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    const error = callErr(tools, "grep", { pattern: "x", glob: "[z-a]" });
    assert.equal(error.tag, "invalid-input");
    assert.match(error.val as string, /"\[z-a\]" is not a valid glob/);
  });

  it("passes on the host's error for the path itself", async () => {
    const { tools } = await filesPlugin({ files: TREE });
    assert.equal(callErr(tools, "grep", { pattern: "x", path: "/work/nope" }).tag, "not-found");
    const error = callErr(tools, "grep", { pattern: "x", path: "/etc" });
    assert.equal(error.tag, "denied");
    assert.equal(error.tag === "denied" && error.val.capability, "fs.read");
  });
});
