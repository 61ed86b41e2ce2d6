/**
 * The unified message model every provider adapter speaks. It follows the Anthropic shape
 * (content blocks on user and assistant messages) because it is the one of the two that can say
 * everything the other can; the OpenAI adapter spreads tool results into `role: "tool"` messages.
 * Tool names here are the runtime's own (`plugin.tool`): adapters map them for the wire.
 */

export interface TextBlock {
  type: "text";
  text: string;
}

/**
 * A ToolCall the model asked for. When the model's arguments were not a JSON object (invalid
 * JSON, a cut-off stream, an array), `input` is `{}`, `input_error` says what was wrong and
 * `raw_input` keeps what the model sent, so the loop can answer with an error result and let the
 * model correct itself instead of crashing the run.
 */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  input_error?: string;
  raw_input?: string;
}

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export type Role = "user" | "assistant";

export interface Message {
  role: Role;
  content: ContentBlock[];
}

/** A tool as offered to the model; `input_schema` is a JSON Schema of an object. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface LlmRequest {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  max_tokens: number;
  temperature?: number;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "other";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Prompt tokens served from the provider's cache (Anthropic cache reads, OpenAI cached_tokens). */
  cache_read?: number;
  /** Prompt tokens written to the provider's cache (Anthropic only). */
  cache_write?: number;
}

export interface LlmResponse {
  content: ContentBlock[];
  usage: Usage;
  stop_reason: StopReason;
  /** The provider's own stop reason, kept for the trace (`stop`, `length`, `pause_turn`, …). */
  provider_stop_reason: string | null;
  /** The model id the provider reported, which may differ from the requested alias. */
  model: string;
  /** HTTP attempts this response took (1 when no retry was needed). */
  attempts: number;
}

export function text(value: string): TextBlock {
  return { type: "text", text: value };
}

export function toolUse(id: string, name: string, input: Record<string, unknown> = {}): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

export function toolResult(toolUseId: string, content: string, options: { isError?: boolean } = {}): ToolResultBlock {
  return { type: "tool_result", tool_use_id: toolUseId, content, is_error: options.isError ?? false };
}

/** A user message; a string becomes one text block. */
export function user(...content: (ContentBlock | string)[]): Message {
  return { role: "user", content: content.map((c) => (typeof c === "string" ? text(c) : c)) };
}

export function assistant(...content: (ContentBlock | string)[]): Message {
  return { role: "assistant", content: content.map((c) => (typeof c === "string" ? text(c) : c)) };
}

/** The ToolCalls of a response, in the order the model gave them. */
export function toolUses(response: Pick<LlmResponse, "content">): ToolUseBlock[] {
  return response.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
}

/** The text of a response's text blocks, joined. */
export function responseText(response: Pick<LlmResponse, "content">): string {
  return response.content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("");
}

/**
 * The error result to send back for a ToolCall whose arguments could not be parsed, so the
 * model sees what it sent and why it was refused, and can retry with valid JSON.
 */
export function malformedInputResult(block: ToolUseBlock): ToolResultBlock {
  const raw = block.raw_input ?? "";
  const shown = raw.length > 2000 ? `${raw.slice(0, 2000)}… (${raw.length - 2000} more characters)` : raw;
  const message = `The arguments for ${block.name} were not valid: ${block.input_error ?? "unknown error"}. You sent: ${shown}. Call the tool again with a JSON object that matches its input schema.`;
  return toolResult(block.id, message, { isError: true });
}

/** The sum of two usages, e.g. a Run's total over its Steps. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = { input_tokens: a.input_tokens + b.input_tokens, output_tokens: a.output_tokens + b.output_tokens };
  if (a.cache_read !== undefined || b.cache_read !== undefined) sum.cache_read = (a.cache_read ?? 0) + (b.cache_read ?? 0);
  if (a.cache_write !== undefined || b.cache_write !== undefined) sum.cache_write = (a.cache_write ?? 0) + (b.cache_write ?? 0);
  return sum;
}
