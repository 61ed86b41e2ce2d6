/**
 * The text tool protocol as a provider in front of the real one (model.tool_protocol: text), for
 * models served without native tool calling. The request goes out with no `tools` field: the
 * tool list is in the system prompt (signature.ts) and earlier calls and results are text
 * (transcript.ts). The answer comes back with its `<tool_call>` elements read into ToolCalls
 * (parse.ts), so the run loop sees the same response a native model gives and runs each call on
 * its one path — input validation, policy, approvals, audit, per-turn limit — with nothing of
 * its own to trust or skip.
 */
import { randomUUID } from "node:crypto";
import { responseText, type LlmRequest, type LlmResponse } from "../model.js";
import type { CompleteOptions, LlmProvider } from "../provider.js";
import { parseToolCalls } from "./parse.js";
import { toolListPrompt } from "./signature.js";
import { CallMarkupFilter } from "./stream-filter.js";
import { toTextMessages } from "./transcript.js";

export type ToolProtocol = "native" | "text";

export interface TextToolProviderOptions {
  /** ToolCall ids (default `call_` and random hex); the loop needs them unique within a run. */
  newId?: () => string;
}

export class TextToolProvider implements LlmProvider {
  readonly #inner: LlmProvider;
  readonly #newId: () => string;

  constructor(inner: LlmProvider, options: TextToolProviderOptions = {}) {
    this.#inner = inner;
    this.#newId = options.newId ?? (() => `call_${randomUUID().replace(/-/g, "").slice(0, 20)}`);
  }

  get provider(): string {
    return this.#inner.provider;
  }

  get model(): string {
    return this.#inner.model;
  }

  get baseUrl(): string | undefined {
    return this.#inner.baseUrl;
  }

  async complete(request: LlmRequest, options: CompleteOptions = {}): Promise<LlmResponse> {
    const filter = new CallMarkupFilter();
    const { onText } = options;
    const shown = onText === undefined ? {} : { onText: (delta: string) => emit(onText, filter.push(delta)) };
    const response = await this.#inner.complete(textRequest(request), { ...options, ...shown });
    if (onText !== undefined) emit(onText, filter.end());
    const content = parseToolCalls(responseText(response), { newId: this.#newId });
    // A server that does call tools natively anyway is not trusted with a second path: only the text counts.
    const calls = content.some((block) => block.type === "tool_use");
    const stop = calls ? "tool_use" : response.stop_reason === "tool_use" ? "end_turn" : response.stop_reason;
    return { ...response, content, stop_reason: stop };
  }
}

function emit(onText: (delta: string) => void, value: string): void {
  if (value !== "") onText(value);
}

/** The request a model without tool calling is sent. */
export function textRequest(request: LlmRequest): LlmRequest {
  const list = toolListPrompt(request.tools);
  return { ...request, system: list === "" ? request.system : `${request.system}\n\n${list}`, messages: toTextMessages(request.messages), tools: [] };
}

/** The provider a run's model block asks for: `provider` itself unless `tool_protocol` is `text`. */
export function withToolProtocol(model: { tool_protocol?: ToolProtocol | undefined }, provider: LlmProvider): LlmProvider {
  return model.tool_protocol === "text" ? new TextToolProvider(provider) : provider;
}
