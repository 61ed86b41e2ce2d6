import assert from "node:assert/strict";
import { test } from "node:test";
import { createRuntimeMetrics } from "../../runtime/metrics/index.js";
import type { RunEvent } from "../../runtime/runs/types.js";

test("a model-driven Step's token usage is counted per provider", async () => {
  const metrics = createRuntimeMetrics();
  const listeners: Array<(event: RunEvent, seq: number) => void> = [];
  const run = {
    ended: false,
    pending: null,
    agent: { model: { provider: "anthropic" } },
    onEvent: (listener: (event: RunEvent, seq: number) => void) => {
      listeners.push(listener);
      return () => undefined;
    },
  };
  metrics.observeRun(run);
  const emit = (event: RunEvent) => listeners.forEach((l, i) => l(event, i + 1));
  emit({ type: "step", stepId: "step_1", action: "tool_call", usage: { input_tokens: 120, output_tokens: 30 }, at: 1 });
  emit({ type: "step", stepId: "step_2", action: "respond", usage: { input_tokens: 200, output_tokens: 12, cache_read: 100 }, at: 2 });
  emit({ type: "step", stepId: "step_3", action: "finish", usage: null, at: 3 });
  const text = await metrics.metrics();
  const value = (direction: string) => Number(new RegExp(`^clawhive_llm_tokens_total\\{provider="anthropic",direction="${direction}"\\} (\\d+)$`, "m").exec(text)?.[1]);
  assert.equal(value("input"), 320, text.split("\n").filter((l) => l.includes("llm")).join("\n"));
  assert.equal(value("output"), 42);
  assert.equal(value("cache_read"), 100);
});
