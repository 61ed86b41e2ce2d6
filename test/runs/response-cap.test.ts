/**
 * A model answer past the agent's `model.max_response_bytes` fails the run with
 * `llm_response_too_large`, recorded in its model_call audit record; none of it is stored.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { testRuntime } from "../helpers/runtime.js";
import { LLM_SECRET, PROVIDERS, type Fake } from "./_loop.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let n = 0;

before(async () => {
  ({ runtime, dispose } = await testRuntime({ sandbox: { callTimeoutMs: 5_000 }, llm: { maxAttempts: 3 } }));
  await runtime.setSecret(LLM_SECRET, "test-key");
});
after(() => dispose());

const CAP = 4096;
const MARK = "OVERSIZED-ANSWER-";

for (const { provider, start } of PROVIDERS) {
  describe(`response cap in a run (${provider})`, () => {
    let fake: Fake;
    before(async () => {
      fake = await start();
    });
    after(() => fake.close());

    async function agent(): Promise<string> {
      const name = `cap-${provider}-${++n}`;
      await runtime.defineAgent({
        name,
        description: "response cap test agent",
        model: { provider, id: "test-model", base_url: fake.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 1024, max_response_bytes: CAP },
        system_prompt: "You are a test agent.",
        plugins: [{ name: "files", version: "*" }],
        grants: { log: {} },
      });
      return name;
    }

    test("an answer past max_response_bytes fails the run with llm_response_too_large; one under it completes", async () => {
      const name = await agent();
      // Control: an answer under the cap is the run's result.
      fake.reply({ type: "text", text: "ok ".repeat(1000) });
      const control = await runtime.submitRun({ agent: name, task: "answer briefly" });
      await control.settled;
      const done = await runtime.records.get(control.run.id);
      assert.deepEqual([done?.endReason, done?.result?.length], ["completed", 3000]);

      const before = fake.requests.length;
      fake.reply({ type: "text", text: MARK.repeat(20_000) });
      const { run, settled } = await runtime.submitRun({ agent: name, task: "answer at length" });
      await settled;
      const record = await runtime.records.get(run.id);
      assert.equal(record?.endReason, "failed");
      assert.match(record?.result ?? "", /max_response_bytes/);
      assert.equal(fake.requests.length, before + 1, "not asked again");
      const calls = (await runtime.audit.query({ runId: run.id, kind: "model_call" })).records;
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.status, "error");
      assert.equal(calls[0]?.error?.code, "response_too_large");
      // Nothing of the answer was kept: not as the result, the run's state or its events.
      const stored = (await runtime.store.execute({ sql: "SELECT state FROM run_loops WHERE run_id = ?", args: [run.id] })).rows.map((r) => String(r.state)).join("");
      await runtime.getRun(run.id)?.flushEvents();
      const events = JSON.stringify(await runtime.events.list(run.id));
      for (const text of [record?.result ?? "", stored, events]) assert.ok(!text.includes(MARK.repeat(2)), "the oversized answer was stored");
    });
  });
}
