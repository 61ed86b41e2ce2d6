import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadConfig, runtimeOptionsFrom } from "../../runtime/config/index.js";

test("memory.embeddings comes from the file and the environment and reaches the runtime's options", async () => {
  const cwd = await mkdtemp(join(tmpdir(), "clawhive-config-memory-"));
  try {
    await writeFile(join(cwd, "clawhive.yaml"), "memory:\n  embeddings:\n    base_url: https://api.openai.com/v1\n    model: text-embedding-3-small\n    dimensions: 1536\n");
    const config = await loadConfig({ env: { CLAWHIVE_MEMORY_EMBEDDINGS_KEY_SECRET: "openai-key", CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS: "512" }, cwd });
    const expected = { baseUrl: "https://api.openai.com/v1", model: "text-embedding-3-small", dimensions: 512, apiKeySecret: "openai-key" };
    assert.deepEqual(config.memory.embeddings, expected);
    assert.deepEqual(runtimeOptionsFrom(config).memory, { embeddings: expected });
    assert.deepEqual(config.sources["memory.embeddings.dimensions"], { kind: "env", name: "CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS" });
    // Control: nothing set, keyword search only.
    const none = await loadConfig({ env: {}, cwd: tmpdir() });
    assert.equal(none.memory.embeddings, undefined);
    assert.equal(runtimeOptionsFrom(none).memory, undefined);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});

test("bad embeddings settings are refused, naming the source and the field", async () => {
  const cwd = await mkdtemp(join(tmpdir(), "clawhive-config-memory-"));
  try {
    const full = { CLAWHIVE_MEMORY_EMBEDDINGS_URL: "http://127.0.0.1:11434/v1", CLAWHIVE_MEMORY_EMBEDDINGS_MODEL: "nomic-embed-text", CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS: "768" };
    assert.deepEqual((await loadConfig({ env: full, cwd })).memory.embeddings, { baseUrl: "http://127.0.0.1:11434/v1", model: "nomic-embed-text", dimensions: 768 });
    for (const [env, message] of [
      [{ ...full, CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS: "0" }, /CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS/],
      [{ ...full, CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS: "12abc" }, /CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS/],
      [{ ...full, CLAWHIVE_MEMORY_EMBEDDINGS_URL: "not a url" }, /CLAWHIVE_MEMORY_EMBEDDINGS_URL: expected an absolute URL/],
      [{ ...full, CLAWHIVE_MEMORY_EMBEDDINGS_KEY_SECRET: "bad name!" }, /CLAWHIVE_MEMORY_EMBEDDINGS_KEY_SECRET/],
      [{ CLAWHIVE_MEMORY_EMBEDDINGS_URL: "http://127.0.0.1:11434/v1" }, /CLAWHIVE_MEMORY_EMBEDDINGS_URL: memory\.embeddings\.model is missing[^\n]*\n[^\n]*memory\.embeddings\.dimensions is missing/],
    ] as const) {
      await assert.rejects(loadConfig({ env, cwd }), message);
    }
    await writeFile(join(cwd, "clawhive.yaml"), "memory:\n  embeddings:\n    model: m\n    dimension: 3\n");
    await assert.rejects(loadConfig({ env: {}, cwd }), /clawhive\.yaml.*memory\.embeddings/s);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});
