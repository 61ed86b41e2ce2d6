import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callErr, callOk, filesPlugin } from "./harness.js";

const SOURCE = "const a = 1;\nconst b = 2;\nconst a2 = 1;\nlog(a);\n";

describe("files plugin: edit_file", () => {
  it("replaces text that appears exactly once", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/x.ts": SOURCE } });
    const result = callOk(tools, "edit_file", { path: "/work/x.ts", old_text: "const b = 2;", new_text: "const b = 3;" });
    assert.deepEqual(result, { path: "/work/x.ts", replacements: 1, bytes: SOURCE.length });
    assert.equal(fs.text("/work/x.ts"), SOURCE.replace("const b = 2;", "const b = 3;"));
  });

  it("fails clearly when old_text is absent, and leaves the file alone", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/x.ts": SOURCE } });
    const error = callErr(tools, "edit_file", { path: "/work/x.ts", old_text: "const c = 3;", new_text: "x" });
    assert.equal(error.tag, "failed");
    assert.match(error.val as string, /^\/work\/x.ts: old_text was not found; read the file again/);
    assert.equal(fs.text("/work/x.ts"), SOURCE);
    assert.ok(!fs.calls.some((call) => call.startsWith("write")));
  });

  it("fails on ambiguous old_text, saying how many times it appears", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/x.ts": SOURCE } });
    const error = callErr(tools, "edit_file", { path: "/work/x.ts", old_text: " = 1;", new_text: " = 9;" });
    assert.equal(error.tag, "failed");
    assert.match(error.val as string, /old_text appears 2 times; add surrounding lines to make it unique, or set replace_all/);
    assert.equal(fs.text("/work/x.ts"), SOURCE);
  });

  it("replaces every occurrence with replace_all", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/x.ts": SOURCE } });
    const result = callOk(tools, "edit_file", { path: "/work/x.ts", old_text: " = 1;", new_text: " = 9;", replace_all: true });
    assert.equal(result["replacements"], 2);
    assert.equal(fs.text("/work/x.ts"), SOURCE.replaceAll(" = 1;", " = 9;"));
  });

  it("inserts new_text literally, `$` patterns included", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/x.ts": "price: X\n" } });
    callOk(tools, "edit_file", { path: "/work/x.ts", old_text: "X", new_text: "$& $1 $$ $`" });
    assert.equal(fs.text("/work/x.ts"), "price: $& $1 $$ $`\n");
  });

  it("counts non-overlapping occurrences", async () => {
    const { tools } = await filesPlugin({ files: { "/work/x.txt": "aaaa" } });
    const error = callErr(tools, "edit_file", { path: "/work/x.txt", old_text: "aa", new_text: "b" });
    assert.match(error.val as string, /appears 2 times/);
  });

  const hints: [string, string, string, RegExp][] = [
    ["CRLF line endings", "a\r\nb\r\n", "a\nb", /CRLF line endings/],
    ["surrounding whitespace", "  return x;\n", "return x;   \n\n", /without its leading or trailing whitespace/],
  ];
  for (const [near, text, oldText, hint] of hints) {
    it(`hints at ${near} when old_text is a near miss`, async () => {
      const { tools } = await filesPlugin({ files: { "/work/f": text } });
      const error = callErr(tools, "edit_file", { path: "/work/f", old_text: oldText, new_text: "z" });
      assert.equal(error.tag, "failed");
      assert.match(error.val as string, hint);
    });
  }

  const badInput: [string, Record<string, unknown>, RegExp][] = [
    ["an empty old_text", { old_text: "", new_text: "x" }, /"old_text": must not be empty/],
    ["new_text equal to old_text", { old_text: "a", new_text: "a" }, /is the same as old_text/],
    ["a missing new_text", { old_text: "a" }, /"new_text": is required/],
    ["a misspelt field", { old_text: "a", new_text: "b", replaceAll: true }, /"replaceAll": is not a field of this tool/],
    ["a string replace_all", { old_text: "a", new_text: "b", replace_all: "yes" }, /"replace_all": must be boolean, got string/],
  ];
  for (const [what, fields, message] of badInput) {
    it(`rejects ${what} as invalid-input`, async () => {
      const { tools, fs } = await filesPlugin({ files: { "/work/f": "a" } });
      const error = callErr(tools, "edit_file", { path: "/work/f", ...fields });
      assert.equal(error.tag, "invalid-input");
      assert.match(error.val as string, message);
      assert.equal(fs.text("/work/f"), "a");
    });
  }

  it("refuses to edit a binary file", async () => {
    const { tools } = await filesPlugin({ files: { "/work/b": new Uint8Array([0x61, 0, 0x62]) } });
    const error = callErr(tools, "edit_file", { path: "/work/b", old_text: "a", new_text: "c" });
    assert.equal(error.tag, "failed");
    assert.match(error.val as string, /binary/);
  });

  it("is denied on a read-only mount after reading, and the denial names fs.write", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/ref/doc.md": "v1\n" } });
    const error = callErr(tools, "edit_file", { path: "/ref/doc.md", old_text: "v1", new_text: "v2" });
    assert.deepEqual(error, {
      tag: "denied",
      val: { capability: "fs.write", reason: "read-only-mount", message: "/ref/doc.md: mount /ref is read-only" },
    });
    assert.equal(fs.text("/ref/doc.md"), "v1\n");
  });

  it("reports a missing file as not-found", async () => {
    const { tools } = await filesPlugin();
    assert.equal(callErr(tools, "edit_file", { path: "/work/none", old_text: "a", new_text: "b" }).tag, "not-found");
  });
});
