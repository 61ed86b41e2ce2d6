import type { LlmResponse } from "../../runtime/llm/index.js";

/** A scripted model's answer: a tool use stops for its result, anything else ends the turn. */
export const respond = (content: LlmResponse["content"]): LlmResponse => ({
  content,
  usage: { input_tokens: 1, output_tokens: 1 },
  stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
  provider_stop_reason: null,
  model: "scripted",
  attempts: 1,
});
