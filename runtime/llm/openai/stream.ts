/**
 * Builds a unified response from Chat Completions chunks: `delta.content` fragments, and
 * `delta.tool_calls[]` entries keyed by `index` — the first entry of an index carries id and
 * name, later ones append `function.arguments` fragments; several indexes are parallel
 * ToolCalls. `finish_reason` arrives on the last choice chunk, usage on a final chunk with
 * `choices: []` (requested with `stream_options.include_usage`).
 */
import { randomUUID } from "node:crypto";
import type OpenAI from "openai";
import type { ContentBlock, LlmResponse, Usage } from "../model.js";
import { toolUseFromRaw } from "../tool-arguments.js";
import type { ResponseBudget } from "../response-cap.js";
import type { ToolNameMap } from "../tool-names.js";
import { stopReason, usageOf } from "./wire.js";

interface Call {
  id: string;
  name: string;
  args: string;
}

export class OpenAiStreamAccumulator {
  #text = "";
  #calls = new Map<number, Call>();
  #finish: string | null = null;
  #usage: Usage = { input_tokens: 0, output_tokens: 0 };
  #model = "";
  #lastIndex = -1;

  /** True once text has been handed to `onText`: a failure after that must not be retried. */
  emitted = false;

  readonly onText: ((delta: string) => void) | undefined;
  readonly #budget: ResponseBudget | undefined;

  constructor(
    readonly names: ToolNameMap,
    options: { onText?: (delta: string) => void; budget?: ResponseBudget } = {},
  ) {
    this.onText = options.onText;
    this.#budget = options.budget;
  }

  add(chunk: OpenAI.ChatCompletionChunk): void {
    if (chunk.model) this.#model = chunk.model;
    if (chunk.usage) this.#usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    const piece = delta.content ?? delta.refusal ?? "";
    if (piece) {
      this.#budget?.add(piece);
      this.#text += piece;
      this.emitted = true;
      this.onText?.(piece);
    }
    for (const tc of delta.tool_calls ?? []) this.#addCall(tc);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  #addCall(tc: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall): void {
    // Some compatible servers omit `index`; a new id then starts the next call.
    const index = typeof tc.index === "number" ? tc.index : tc.id !== undefined && !this.#hasId(tc.id) ? this.#lastIndex + 1 : Math.max(this.#lastIndex, 0);
    this.#lastIndex = Math.max(this.#lastIndex, index);
    let call = this.#calls.get(index);
    if (!call) {
      call = { id: "", name: "", args: "" };
      this.#calls.set(index, call);
    }
    this.#budget?.add(tc.id);
    this.#budget?.add(tc.function?.name);
    this.#budget?.add(tc.function?.arguments);
    if (tc.id) call.id = tc.id;
    if (tc.function?.name) call.name += tc.function.name;
    if (tc.function?.arguments) call.args += tc.function.arguments;
  }

  #hasId(id: string): boolean {
    return [...this.#calls.values()].some((c) => c.id === id);
  }

  /** The response; throws when the stream ended before a finish_reason (a broken connection). */
  finish(): Omit<LlmResponse, "attempts"> {
    if (this.#finish === null) throw new Error("the stream ended before a finish_reason");
    const content: ContentBlock[] = this.#text === "" ? [] : [{ type: "text", text: this.#text }];
    for (const index of [...this.#calls.keys()].sort((a, b) => a - b)) {
      const call = this.#calls.get(index) as Call;
      // A server that sends no id still needs one for the tool results to refer to.
      const id = call.id || `call_${randomUUID().replaceAll("-", "")}`;
      content.push(toolUseFromRaw({ id, name: this.names.fromWire(call.name) }, call.args, { cutOff: this.#finish === "length" }));
    }
    const hasCalls = this.#calls.size > 0;
    return { content, usage: this.#usage, stop_reason: stopReason(this.#finish, hasCalls), provider_stop_reason: this.#finish, model: this.#model };
  }
}
