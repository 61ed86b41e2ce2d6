/**
 * A run keeps its latest events in memory (all of them are in the store): at least the last
 * 10,000, trimmed a thousand at a time rather than one per event.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";

let runtime: Runtime;
let dispose: () => Promise<void>;

before(async () => {
  ({ runtime, dispose } = await testRuntime());
  await defineTestAgent(runtime, "talker", {});
});

after(async () => dispose());

test("a long run keeps its latest 10,000 to 11,000 events, newest last; control: a short run keeps them all", async () => {
  const short = await runtime.startRun({ agent: "talker" });
  for (let i = 0; i < 50; i++) short.recordText("step_1", `short ${i}`);
  assert.deepEqual(short.events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text), Array.from({ length: 50 }, (_, i) => `short ${i}`));
  await short.end();

  const long = await runtime.startRun({ agent: "talker" });
  for (let i = 0; i < 12_345; i++) {
    long.recordText("step_1", `line ${i}`);
    assert.ok(long.events.length <= 11_000, `at most 11,000 kept (${long.events.length} after ${i + 1})`);
  }
  assert.ok(long.events.length >= 10_000, `at least 10,000 kept (${long.events.length})`);
  const texts = long.events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text);
  assert.equal(texts.at(-1), "line 12344");
  assert.equal(texts.at(-10_000), `line ${12_345 - 10_000}`, "the kept events are the latest, in order");
  await long.end();
});
