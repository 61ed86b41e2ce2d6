import assert from "node:assert/strict";
import { writeFile, utimes } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { testRuntime } from "../helpers/runtime.js";

const agent = (name: string, extra = "") => `name: ${name}
description: Writes notes.
model: { provider: anthropic, id: none }
system_prompt: Not used.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  log: {}
${extra}`;

test("agents are parsed when their file or stored text changes, not before every run", async (t) => {
  const { runtime, dataDir, dispose } = await testRuntime();
  t.after(dispose);
  const dir = join(dataDir, "agents");
  await writeFile(join(dir, "alpha.yaml"), agent("alpha"));
  await writeFile(join(dir, "beta.yaml"), agent("beta"));
  await runtime.refreshAgents();
  const first = runtime.agentParses;
  for (let i = 0; i < 3; i++) {
    const run = await runtime.startRun({ agent: "alpha", task: "t" });
    await run.end();
  }
  assert.equal(runtime.agentParses, first, "unchanged files are not parsed again");
  // An edit (new size) is seen at the next run, and only that file is parsed.
  await writeFile(join(dir, "beta.yaml"), agent("beta", "# edited\n"));
  await runtime.refreshAgents();
  assert.equal(runtime.agentParses, first + 1);
  // A stored agent is parsed once per change as well.
  await runtime.agentStore.put("gamma", agent("gamma"), { format: "yaml", dataDir });
  await runtime.refreshAgents();
  await runtime.refreshAgents();
  assert.equal(runtime.agentParses, first + 2);
  await runtime.agentStore.put("gamma", agent("gamma", "# edited\n"), { format: "yaml", dataDir });
  await runtime.refreshAgents();
  assert.equal(runtime.agentParses, first + 3);
  assert.ok(runtime.agents().some((a) => a.name === "gamma"));
});

test("an agent file added or fixed after start runs without a restart; an invalid one is refused with its reason and blocks no other", async (t) => {
  const { runtime, dataDir, dispose } = await testRuntime();
  t.after(dispose);
  const dir = join(dataDir, "agents");
  // Added after the runtime started (a server sees it at the next run).
  await writeFile(join(dir, "late.yaml"), agent("late"));
  await writeFile(join(dir, "broken.yaml"), agent("broken").replace("system_prompt: Not used.\n", ""));
  const late = await runtime.startRun({ agent: "late", task: "t" });
  await late.end();
  await assert.rejects(runtime.startRun({ agent: "broken", task: "t" }), (error: Error & { code?: string; status?: number }) => {
    assert.equal(error.code, "agent_invalid");
    assert.equal(error.status, 409);
    assert.match(error.message, /broken\.yaml: .*system_prompt/);
    return true;
  });
  assert.ok(runtime.invalidAgents().has("broken"));
  assert.ok(!runtime.agents().some((a) => a.name === "broken"));
  // A reference to the broken agent makes only the referencing one invalid.
  await writeFile(join(dir, "boss.yaml"), agent("boss", "sub_agents: [broken]\n"));
  await assert.rejects(runtime.startRun({ agent: "boss", task: "t" }), /agent boss is invalid[\s\S]*no agent named broken/);
  // Fixed (same size and mtime restored would be a cache hit: a real edit moves the mtime).
  await writeFile(join(dir, "broken.yaml"), agent("broken"));
  const later = new Date(Date.now() + 5_000);
  await utimes(join(dir, "broken.yaml"), later, later);
  const fixed = await runtime.startRun({ agent: "broken", task: "t" });
  await fixed.end();
  const boss = await runtime.startRun({ agent: "boss", task: "t" });
  await boss.end();
  assert.equal(runtime.invalidAgents().size, 0);
  // A removed file is gone at the next look.
  const { rm } = await import("node:fs/promises");
  await rm(join(dir, "late.yaml"));
  await assert.rejects(runtime.startRun({ agent: "late", task: "t" }), /no agent late/);
});
