/**
 * The unified model ⇄ the Anthropic Messages API (POST /v1/messages).
 * Documented rules this follows: tool_result blocks come first in a user turn, before any text;
 * text blocks must not be empty; tool names match ^[a-zA-Z0-9_-]{1,64}$ (tool-names.ts); no
 * sampling parameters (temperature, top_p, top_k) under anthropic-version 2026-10-21.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ContentBlock, LlmRequest, LlmResponse, Message, StopReason, Usage } from "../model.js";
import { toolUseFromRaw } from "../tool-arguments.js";
import type { ToolNameMap } from "../tool-names.js";

type Params = Anthropic.MessageCreateParamsNonStreaming;
type WireMessage = Anthropic.MessageParam;
type WireBlock = Anthropic.ContentBlockParam;

export function toAnthropicParams(request: LlmRequest, options: { model: string; names: ToolNameMap }): Params {
  const { model, names } = options;
  const params: Params = {
    model,
    max_tokens: request.max_tokens,
    messages: request.messages.map((m) => toWireMessage(m, names)),
  };
  for (const t of request.tools) names.toWire(t.name);
  if (request.system !== "") params.system = names.inText(request.system);
  // `temperature` is not sent: API version 2026-10-21 (the one @anthropic-ai/sdk 1.x sends in
  // anthropic-version) refuses every sampling parameter with a 400, and the SDK dropped them.
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({
      name: names.toWire(t.name),
      description: names.inText(t.description),
      input_schema: t.input_schema as Anthropic.Tool.InputSchema,
    }));
  }
  return params;
}

function toWireMessage(message: Message, names: ToolNameMap): WireMessage {
  const results: WireBlock[] = [];
  const rest: WireBlock[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      results.push({ type: "tool_result", tool_use_id: block.tool_use_id, content: block.content, ...(block.is_error ? { is_error: true } : {}) });
    } else if (block.type === "tool_use") {
      rest.push({ type: "tool_use", id: block.id, name: names.toWire(block.name), input: block.input });
    } else if (block.text !== "") {
      rest.push({ type: "text", text: block.text });
    }
  }
  const content = [...results, ...rest];
  // The API refuses a turn with no content; say so rather than drop the turn and break alternation.
  return { role: message.role, content: content.length > 0 ? content : [{ type: "text", text: "(empty)" }] };
}

export function stopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
      return reason;
    default:
      // pause_turn, refusal, model_context_window_exceeded, and whatever comes next.
      return "other";
  }
}

interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Folds a usage object into `usage`; message_delta repeats fields cumulatively, so later wins. */
export function mergeUsage(usage: Usage, wire: WireUsage | null | undefined): void {
  if (!wire) return;
  if (typeof wire.input_tokens === "number") usage.input_tokens = wire.input_tokens;
  if (typeof wire.output_tokens === "number") usage.output_tokens = wire.output_tokens;
  if (typeof wire.cache_read_input_tokens === "number") usage.cache_read = wire.cache_read_input_tokens;
  if (typeof wire.cache_creation_input_tokens === "number") usage.cache_write = wire.cache_creation_input_tokens;
}

/** A non-streaming `Message` as a unified response (without `attempts`). */
export function fromAnthropicMessage(message: Anthropic.Message, names: ToolNameMap): Omit<LlmResponse, "attempts"> {
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "tool_use") {
      const input = block.input;
      const name = names.fromWire(block.name);
      content.push(
        input !== null && typeof input === "object" && !Array.isArray(input)
          ? { type: "tool_use", id: block.id, name, input: input as Record<string, unknown> }
          : toolUseFromRaw({ id: block.id, name }, JSON.stringify(input ?? null)),
      );
    }
  }
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  mergeUsage(usage, message.usage);
  return { content, usage, stop_reason: stopReason(message.stop_reason), provider_stop_reason: message.stop_reason ?? null, model: message.model };
}
