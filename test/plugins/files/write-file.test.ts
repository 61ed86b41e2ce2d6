import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callErr, callOk, filesPlugin } from "./harness.js";

describe("files plugin: write_file", () => {
  it("creates a file with one host call when its directory exists", async () => {
    const { tools, fs } = await filesPlugin();
    assert.deepEqual(callOk(tools, "write_file", { path: "/work/notes.md", content: "héllo\n" }), {
      path: "/work/notes.md",
      bytes: 7,
    });
    assert.equal(fs.text("/work/notes.md"), "héllo\n");
    assert.deepEqual(fs.calls, ["write /work/notes.md"]);
  });

  it("replaces the content of an existing file", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/a.txt": "old old old" } });
    callOk(tools, "write_file", { path: "/work/a.txt", content: "new" });
    assert.equal(fs.text("/work/a.txt"), "new");
  });

  it("creates missing parent directories", async () => {
    const { tools, fs } = await filesPlugin();
    callOk(tools, "write_file", { path: "/work/a/b/c.txt", content: "deep" });
    assert.equal(fs.text("/work/a/b/c.txt"), "deep");
    assert.ok(fs.hasDir("/work/a/b"));
    assert.deepEqual(fs.calls, ["write /work/a/b/c.txt", "mkdir /work/a/b", "write /work/a/b/c.txt"]);
  });

  it("writes an empty file", async () => {
    const { tools, fs } = await filesPlugin();
    assert.equal(callOk(tools, "write_file", { path: "/work/empty", content: "" })["bytes"], 0);
    assert.equal(fs.text("/work/empty"), "");
  });

  const denied: [string, string, string][] = [
    ["a read-only mount", "/ref/x.txt", "read-only-mount"],
    ["outside every mount", "/etc/x.txt", "outside-mount"],
    ["a sensitive name", "/work/.env", "sensitive-name"],
  ];
  for (const [where, path, reason] of denied) {
    it(`is denied on ${where}, and writes nothing`, async () => {
      const { tools, fs } = await filesPlugin();
      const error = callErr(tools, "write_file", { path, content: "x" });
      assert.equal(error.tag, "denied");
      assert.equal(error.tag === "denied" && error.val.reason, reason);
      assert.equal(error.tag === "denied" && error.val.capability, "fs.write");
      assert.equal(fs.text(path), undefined);
    });
  }

  it("requires content", async () => {
    const { tools } = await filesPlugin();
    assert.deepEqual(callErr(tools, "write_file", { path: "/work/a" }), {
      tag: "invalid-input",
      val: 'input field "content": is required',
    });
  });
});
