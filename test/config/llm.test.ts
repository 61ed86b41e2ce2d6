import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadConfig, runtimeOptionsFrom } from "../../runtime/config/index.js";

test("llm settings come from the file and the environment and reach the runtime's options", async () => {
  const cwd = await mkdtemp(join(tmpdir(), "clawhive-config-llm-"));
  try {
    await writeFile(join(cwd, "clawhive.yaml"), "llm:\n  proxy_url: http://proxy.internal:3128\n  max_attempts: 2\n");
    const config = await loadConfig({ env: { CLAWHIVE_LLM_TIMEOUT_MS: "30000" }, cwd });
    assert.deepEqual(config.llm, { proxyUrl: "http://proxy.internal:3128", timeoutMs: 30000, maxAttempts: 2 });
    assert.deepEqual(runtimeOptionsFrom(config).llm, { proxyUrl: "http://proxy.internal:3128", timeoutMs: 30000, maxAttempts: 2 });
    // Control: nothing set, nothing passed (the providers' defaults apply).
    assert.deepEqual(runtimeOptionsFrom(await loadConfig({ env: {}, cwd: tmpdir() })).llm, {});
    for (const [env, message] of [
      [{ CLAWHIVE_LLM_MAX_ATTEMPTS: "0" }, /CLAWHIVE_LLM_MAX_ATTEMPTS/],
      [{ CLAWHIVE_LLM_PROXY_URL: "not a url" }, /CLAWHIVE_LLM_PROXY_URL: expected an absolute URL/],
      [{ CLAWHIVE_LLM_TIMEOUT_MS: "1e3" }, /CLAWHIVE_LLM_TIMEOUT_MS/],
    ] as const) {
      await assert.rejects(loadConfig({ env, cwd: tmpdir() }), message);
    }
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});
