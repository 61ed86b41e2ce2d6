import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callErr, callOk, filesPlugin } from "./harness.js";

describe("files plugin: read_file", () => {
  it("returns the whole text with its line counts", async () => {
    const { tools } = await filesPlugin({ files: { "/work/a.txt": "one\ntwo\nthree\n" } });
    assert.deepEqual(callOk(tools, "read_file", { path: "/work/a.txt" }), {
      path: "/work/a.txt",
      content: "one\ntwo\nthree\n",
      start_line: 1,
      end_line: 3,
      total_lines: 3,
      truncated: false,
    });
  });

  it("returns a window of lines from offset, with where to go on", async () => {
    const { tools } = await filesPlugin({ files: { "/work/a.txt": "1\n2\n3\n4\n5" } });
    const result = callOk(tools, "read_file", { path: "/work/a.txt", offset: 2, limit: 2 });
    assert.equal(result["content"], "2\n3\n");
    assert.equal(result["start_line"], 2);
    assert.equal(result["end_line"], 3);
    assert.equal(result["total_lines"], 5);
    assert.equal(result["truncated"], true);
    assert.equal(result["next_offset"], 4);
    // The last line has no terminator and keeps none.
    assert.equal(callOk(tools, "read_file", { path: "/work/a.txt", offset: 5 })["content"], "5");
  });

  it("keeps CRLF line endings as they are", async () => {
    const { tools } = await filesPlugin({ files: { "/work/w.txt": "a\r\nb\r\n" } });
    const result = callOk(tools, "read_file", { path: "/work/w.txt" });
    assert.equal(result["content"], "a\r\nb\r\n");
    assert.equal(result["total_lines"], 2);
  });

  it("reads an empty file as no lines", async () => {
    const { tools } = await filesPlugin({ files: { "/work/empty": "" } });
    const result = callOk(tools, "read_file", { path: "/work/empty" });
    assert.equal(result["content"], "");
    assert.equal(result["total_lines"], 0);
    assert.equal(result["truncated"], false);
  });

  it("resolves a relative path against the first mount", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/src/a.ts": "x\n" } });
    assert.equal(callOk(tools, "read_file", { path: "./src//a.ts" })["path"], "/work/src/a.ts");
    assert.ok(fs.calls.includes("read /work/src/a.ts"));
  });

  it("cuts a huge file at a line boundary and says so", async () => {
    const line = `${"x".repeat(99)}\n`;
    const { tools } = await filesPlugin({ files: { "/work/big.txt": line.repeat(5000) } });
    const result = callOk(tools, "read_file", { path: "/work/big.txt", limit: 5000 });
    const content = result["content"] as string;
    assert.ok(content.length <= 256 * 1024);
    assert.ok(content.endsWith("\n"));
    assert.equal(result["truncated"], true);
    assert.equal(result["next_offset"], (result["end_line"] as number) + 1);
  });

  it("cuts a single line longer than the cap rather than return nothing", async () => {
    const { tools } = await filesPlugin({ files: { "/work/min.js": "y".repeat(300_000) } });
    const result = callOk(tools, "read_file", { path: "/work/min.js" });
    assert.equal((result["content"] as string).length, 256 * 1024);
    assert.equal(result["end_line"], 1);
  });

  const refused: [string, Uint8Array, RegExp][] = [
    ["a NUL byte", new Uint8Array([0x50, 0x4e, 0x47, 0x00, 0x01]), /binary/],
    ["invalid UTF-8", new Uint8Array([0x63, 0x61, 0x66, 0xe9]), /binary file \(or not UTF-8\)/],
  ];
  for (const [why, bytes, message] of refused) {
    it(`refuses a binary file (${why})`, async () => {
      const { tools } = await filesPlugin({ files: { "/work/blob": bytes } });
      const error = callErr(tools, "read_file", { path: "/work/blob" });
      assert.equal(error.tag, "failed");
      assert.match(error.val as string, message);
    });
  }

  const badInput: [string, unknown, RegExp][] = [
    ["offset 0", { path: "/work/a.txt", offset: 0 }, /"offset": must be at least 1/],
    ["offset past the end", { path: "/work/a.txt", offset: 9 }, /"offset": 9 is past the end of \/work\/a.txt \(2 lines\)/],
    ["limit 0", { path: "/work/a.txt", limit: 0 }, /"limit": must be at least 1/],
    ["a fractional offset", { path: "/work/a.txt", offset: 1.5 }, /"offset": must be integer, got number/],
    ["an empty path", { path: "" }, /path: must not be empty/],
  ];
  for (const [what, input, message] of badInput) {
    it(`rejects ${what} as invalid-input`, async () => {
      const { tools } = await filesPlugin({ files: { "/work/a.txt": "1\n2\n" } });
      const error = callErr(tools, "read_file", input);
      assert.equal(error.tag, "invalid-input");
      assert.match(error.val as string, message);
    });
  }

  it("reports a missing file as not-found", async () => {
    const { tools } = await filesPlugin();
    assert.deepEqual(callErr(tools, "read_file", { path: "/work/nope.txt" }), {
      tag: "not-found",
      val: "/work/nope.txt: no such file",
    });
  });

  it("passes the host's denial on as it came", async () => {
    const { tools } = await filesPlugin({ files: { "/work/.env": "SECRET=1" } });
    assert.deepEqual(callErr(tools, "read_file", { path: "/work/.env" }), {
      tag: "denied",
      val: { capability: "fs.read", reason: "sensitive-name", message: "/work/.env: names a sensitive file" },
    });
    // Control: a plain file beside it reads.
    const { tools: control } = await filesPlugin({ files: { "/work/env.txt": "ok" } });
    assert.equal(callOk(control, "read_file", { path: "/work/env.txt" })["content"], "ok");
  });
});
