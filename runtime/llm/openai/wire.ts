/**
 * The unified model ⇄ OpenAI Chat Completions (POST {baseURL}/chat/completions), which OpenAI
 * and the OpenAI-compatible servers (Ollama, vLLM, LocalAI, Azure OpenAI v1, Gemini's compatible
 * endpoint) all speak. A unified user turn becomes one `role: "tool"` message per tool_result
 * (they must directly follow the assistant message that made the calls), then a user message
 * for its text. Chat Completions has no error flag on tool messages, so an error result's
 * content is prefixed with `Error: `.
 */
import type OpenAI from "openai";
import { LlmError } from "../errors.js";
import type { ContentBlock, LlmRequest, LlmResponse, Message, StopReason, ToolUseBlock, Usage } from "../model.js";
import { toolUseFromRaw } from "../tool-arguments.js";
import type { ToolNameMap } from "../tool-names.js";

type Params = OpenAI.ChatCompletionCreateParamsNonStreaming;
type WireMessage = OpenAI.ChatCompletionMessageParam;

export interface OpenAiWireOptions {
  model: string;
  names: ToolNameMap;
  /**
   * OpenAI itself takes `max_completion_tokens` (and refuses `max_tokens` for reasoning models);
   * compatible servers mostly know only `max_tokens`.
   */
  maxTokensField: "max_completion_tokens" | "max_tokens";
}

export function toOpenAiParams(request: LlmRequest, options: OpenAiWireOptions): Params {
  const { model, names } = options;
  for (const t of request.tools) names.toWire(t.name);
  const messages: WireMessage[] = request.system === "" ? [] : [{ role: "system", content: names.inText(request.system) }];
  for (const m of request.messages) messages.push(...toWireMessages(m, names));
  const params: Params = { model, messages };
  params[options.maxTokensField] = request.max_tokens;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: names.toWire(t.name), description: names.inText(t.description), parameters: t.input_schema },
    }));
  }
  return params;
}

function toWireMessages(message: Message, names: ToolNameMap): WireMessage[] {
  const text = message.content
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n\n");
  if (message.role === "assistant") {
    const calls = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    const wire: OpenAI.ChatCompletionAssistantMessageParam = { role: "assistant", content: text === "" ? null : text };
    if (calls.length > 0) {
      wire.tool_calls = calls.map((c) => ({
        id: c.id,
        type: "function",
        // Malformed arguments are sent back as {}: chat templates of compatible servers parse them.
        function: { name: names.toWire(c.name), arguments: JSON.stringify(c.input) },
      }));
    }
    return [wire];
  }
  const out: WireMessage[] = [];
  for (const b of message.content) {
    if (b.type === "tool_result") out.push({ role: "tool", tool_call_id: b.tool_use_id, content: b.is_error ? `Error: ${b.content}` : b.content });
  }
  if (text !== "" || out.length === 0) out.push({ role: "user", content: text });
  return out;
}

/**
 * Some compatible servers (Ollama, older vLLM) answer `stop` even when the message carries tool
 * calls; a response with tool calls is a tool_use turn whatever the reason says.
 */
export function stopReason(reason: string | null | undefined, hasToolCalls: boolean): StopReason {
  if (reason === "length") return "max_tokens";
  if (hasToolCalls || reason === "tool_calls" || reason === "function_call") return "tool_use";
  if (reason === "stop") return "end_turn";
  return "other";
}

export function usageOf(wire: OpenAI.CompletionUsage | null | undefined): Usage {
  const usage: Usage = { input_tokens: wire?.prompt_tokens ?? 0, output_tokens: wire?.completion_tokens ?? 0 };
  const cached = wire?.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number") usage.cache_read = cached;
  return usage;
}

export function fromOpenAiCompletion(completion: OpenAI.ChatCompletion, names: ToolNameMap): Omit<LlmResponse, "attempts"> {
  const choice = completion.choices[0];
  if (choice === undefined) throw new LlmError("llm_bad_response", "the response has no choices");
  const content: ContentBlock[] = [];
  const textValue = choice.message.content ?? choice.message.refusal ?? "";
  if (textValue !== "") content.push({ type: "text", text: textValue });
  for (const call of choice.message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    content.push(toolUseFromRaw({ id: call.id, name: names.fromWire(call.function.name) }, call.function.arguments));
  }
  const hasCalls = content.some((b) => b.type === "tool_use");
  return {
    content,
    usage: usageOf(completion.usage),
    stop_reason: stopReason(choice.finish_reason, hasCalls),
    provider_stop_reason: choice.finish_reason ?? null,
    model: completion.model,
  };
}
