import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callErr, callOk, filesPlugin } from "./harness.js";

describe("files plugin: list_dir", () => {
  it("lists entries in name order with kind and size as numbers", async () => {
    const { tools, fs } = await filesPlugin({ files: { "/work/b.txt": "12345", "/work/a.txt": "", "/work/src/x.ts": "x" } });
    fs.addDir("/work/empty");
    assert.deepEqual(callOk(tools, "list_dir", { path: "/work" }), {
      path: "/work",
      entries: [
        { name: "a.txt", kind: "file", size: 0 },
        { name: "b.txt", kind: "file", size: 5 },
        { name: "empty", kind: "directory", size: 4096 },
        { name: "src", kind: "directory", size: 4096 },
      ],
      total: 4,
      truncated: false,
    });
  });

  it('lists the first mount for "."', async () => {
    const { tools } = await filesPlugin({ files: { "/work/a": "" } });
    assert.equal(callOk(tools, "list_dir", { path: "." })["path"], "/work");
  });

  it("caps a huge directory and says so", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1005; i += 1) files[`/work/f${String(i).padStart(4, "0")}`] = "";
    const { tools } = await filesPlugin({ files });
    const result = callOk(tools, "list_dir", { path: "/work" });
    assert.equal((result["entries"] as unknown[]).length, 1000);
    assert.equal(result["total"], 1005);
    assert.equal(result["truncated"], true);
  });

  it("reports a missing directory as not-found and a file as failed", async () => {
    const { tools } = await filesPlugin({ files: { "/work/a.txt": "" } });
    assert.equal(callErr(tools, "list_dir", { path: "/work/nope" }).tag, "not-found");
    assert.deepEqual(callErr(tools, "list_dir", { path: "/work/a.txt" }), { tag: "failed", val: "/work/a.txt: is not a directory" });
  });

  it("passes on a denial outside the mounts; a mount itself lists", async () => {
    const { tools } = await filesPlugin();
    const error = callErr(tools, "list_dir", { path: "/" });
    assert.equal(error.tag, "denied");
    assert.equal(error.tag === "denied" && error.val.reason, "outside-mount");
    assert.equal(callOk(tools, "list_dir", { path: "/ref" })["path"], "/ref");
  });
});
