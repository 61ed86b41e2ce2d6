import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { startFakeAnthropic } from "../helpers/fake-llm/index.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { LLM_SECRET, sent, type Fake } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let fake: Fake;
let work: string;
let skillsDir: string;

before(async () => {
  work = await tempDir();
  skillsDir = await tempDir("clawhive-skills-");
  await mkdir(join(skillsDir, "careful"));
  await writeFile(join(skillsDir, "careful", "SKILL.md"), "---\nname: careful\ndescription: be careful\nrequires: {tools: [files.read_file]}\n---\nALWAYS DOUBLE-CHECK.\n");
  await mkdir(join(skillsDir, "writer"));
  await writeFile(join(skillsDir, "writer", "SKILL.md"), "---\nname: writer\ndescription: write\nrequires: {tools: [files.write_file]}\n---\nWRITE BOLDLY.\n");
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 }, skillsDir }));
  await runtime.setSecret(LLM_SECRET, "test-key");
  fake = await startFakeAnthropic();
  const model = { provider: "anthropic", id: "m", base_url: fake.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 512 };
  const fsRead = { "fs.read": { mounts: [{ guest: "/work", host: work }] } };
  await runtime.defineAgent({ name: "helper", description: "finds things", model, system_prompt: "Helper.", plugins: [{ name: "files", version: "*" }], grants: fsRead });
  await runtime.defineAgent({
    name: "lead", description: "delegates", model, system_prompt: "Lead.", plugins: [{ name: "files", version: "*" }],
    grants: { ...fsRead, "agent.spawn": { agents: ["helper"] } }, sub_agents: ["helper"], skills: ["careful", "writer"],
  });
});
after(async () => {
  await fake.close();
  await dispose();
  await rm(work, { recursive: true, force: true });
  await rm(skillsDir, { recursive: true, force: true });
});

test("the model spawns a sub-agent through its tool; the child's answer comes back; skills filtered by grants", async () => {
  fake.reply(
    { type: "tool_calls", calls: [{ name: "subagent_helper", arguments: { task: "find the notes" } }] },
    { type: "text", text: "child answer: notes found" },
    { type: "text", text: "lead done" },
  );
  const { run, settled } = await runtime.submitRun({ agent: "lead", task: "delegate" });
  await settled;
  const record = await runtime.records.get(run.id);
  assert.equal(record?.result, "lead done");
  assert.match(sent(fake, 0), /subagent_helper/);
  assert.match(sent(fake, 0), /ALWAYS DOUBLE-CHECK/);
  assert.doesNotMatch(sent(fake, 0), /WRITE BOLDLY/);
  assert.match(sent(fake, 2), /child answer: notes found/);
  const children = (await runtime.records.list({ limit: 10 })).filter((r) => r.parentRunId === run.id);
  assert.equal(children.length, 1);
  assert.equal(children[0]?.traceId, run.traceId);
  assert.equal(children[0]?.result, "child answer: notes found");
  // Each model call is audited under the one trace; the child's names its parent run.
  const calls = (await runtime.audit.query({ traceId: run.traceId, kind: "model_call", order: "asc" })).records;
  assert.deepEqual(
    calls.map((c) => [c.runId, c.parentRunId, c.modelCall?.stopReason]),
    [
      [run.id, null, "tool_use"],
      [children[0]!.id, run.id, "end_turn"],
      [run.id, null, "end_turn"],
    ],
  );
});
