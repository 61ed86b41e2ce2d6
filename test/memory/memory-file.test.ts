import assert from "node:assert/strict";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { memoryFilePath, readMemoryFile, writeMemoryFile } from "../../runtime/memory/index.js";
import { tempDir } from "../store/temp-store.js";

describe("MEMORY.md", () => {
  it("reads '' when absent, then what was written, leaving no temp file", async () => {
    const dir = await tempDir("clawhive-memfile-");
    try {
      assert.equal(await readMemoryFile(dir.path, "mail"), "");
      await writeMemoryFile(dir.path, "mail", "# Notes\n- prefers short replies\n");
      await writeMemoryFile(dir.path, "mail", "# Notes\n- prefers long replies\n");
      assert.equal(await readMemoryFile(dir.path, "mail"), "# Notes\n- prefers long replies\n");
      assert.deepEqual(await readdir(join(dir.path, "agents", "mail")), ["MEMORY.md"]);
    } finally {
      await dir.remove();
    }
  });

  it("refuses a write over the cap and a hand-edited file grown past it", async () => {
    const dir = await tempDir("clawhive-memfile-");
    try {
      await assert.rejects(writeMemoryFile(dir.path, "a", "x".repeat(11), { maxBytes: 10 }), { code: "memory_file_too_large" });
      await writeMemoryFile(dir.path, "a", "x".repeat(10), { maxBytes: 10 });
      await writeFile(memoryFilePath(dir.path, "a"), "y".repeat(11));
      await assert.rejects(readMemoryFile(dir.path, "a", { maxBytes: 10 }), { code: "memory_file_too_large" });
      assert.equal(await readMemoryFile(dir.path, "a", { maxBytes: 11 }), "y".repeat(11));
    } finally {
      await dir.remove();
    }
  });

  for (const agent of ["../etc", "a/b", "", ".hidden", "A", "a".repeat(65)]) {
    it(`refuses the agent name ${JSON.stringify(agent)}`, () => assert.throws(() => memoryFilePath("/data", agent), { code: "invalid_input" }));
  }
  it("control: a plain agent name maps inside dataDir", () => {
    assert.equal(memoryFilePath("/data", "mail-bot_2"), join("/data", "agents", "mail-bot_2", "MEMORY.md"));
  });
});
