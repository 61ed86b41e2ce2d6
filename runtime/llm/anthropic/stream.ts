/**
 * Builds a unified response from Anthropic's streaming events: message_start, then per block
 * content_block_start / content_block_delta (text_delta, input_json_delta) / content_block_stop,
 * then message_delta (stop_reason, cumulative usage) and message_stop. Several tool_use blocks in
 * one message are parallel ToolCalls. `ping` and unknown events or deltas are ignored, as the
 * API's versioning policy asks of clients.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ContentBlock, LlmResponse, Usage } from "../model.js";
import { toolUseFromRaw } from "../tool-arguments.js";
import type { ResponseBudget } from "../response-cap.js";
import type { ToolNameMap } from "../tool-names.js";
import { mergeUsage, stopReason } from "./wire.js";

type Slot = { kind: "text"; text: string } | { kind: "tool"; id: string; name: string; json: string; stopped: boolean } | { kind: "other" };

export class AnthropicStreamAccumulator {
  #slots = new Map<number, Slot>();
  #usage: Usage = { input_tokens: 0, output_tokens: 0 };
  #model = "";
  #stop: string | null = null;
  #done = false;

  readonly onText: ((delta: string) => void) | undefined;
  readonly #budget: ResponseBudget | undefined;

  constructor(
    readonly names: ToolNameMap,
    options: { onText?: (delta: string) => void; budget?: ResponseBudget } = {},
  ) {
    this.onText = options.onText;
    this.#budget = options.budget;
  }

  /** True once text has been handed to `onText`: a failure after that must not be retried. */
  emitted = false;

  add(event: Anthropic.MessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.#model = event.message.model;
        mergeUsage(this.#usage, event.message.usage);
        break;
      case "content_block_start": {
        const b = event.content_block;
        this.#budget?.add(b.type === "text" ? b.text : b.type === "tool_use" ? `${b.id}${b.name}` : undefined);
        const slot: Slot =
          b.type === "text" ? { kind: "text", text: b.text } : b.type === "tool_use" ? { kind: "tool", id: b.id, name: b.name, json: "", stopped: false } : { kind: "other" };
        this.#slots.set(event.index, slot);
        if (slot.kind === "text" && slot.text !== "") this.#emit(slot.text);
        break;
      }
      case "content_block_delta": {
        const slot = this.#slots.get(event.index);
        const d = event.delta;
        this.#budget?.add(d.type === "text_delta" ? d.text : d.type === "input_json_delta" ? d.partial_json : undefined);
        if (slot?.kind === "text" && d.type === "text_delta") {
          slot.text += d.text;
          this.#emit(d.text);
        } else if (slot?.kind === "tool" && d.type === "input_json_delta") {
          slot.json += d.partial_json;
        }
        break;
      }
      case "content_block_stop": {
        const slot = this.#slots.get(event.index);
        if (slot?.kind === "tool") slot.stopped = true;
        break;
      }
      case "message_delta":
        this.#stop = event.delta.stop_reason ?? this.#stop;
        mergeUsage(this.#usage, event.usage);
        break;
      case "message_stop":
        this.#done = true;
        break;
    }
  }

  #emit(delta: string): void {
    this.emitted = true;
    this.onText?.(delta);
  }

  /** The response; throws when the stream ended before message_stop (a broken connection). */
  finish(): Omit<LlmResponse, "attempts"> {
    if (!this.#done) throw new Error("the stream ended before message_stop");
    const content: ContentBlock[] = [];
    for (const index of [...this.#slots.keys()].sort((a, b) => a - b)) {
      const slot = this.#slots.get(index);
      if (slot?.kind === "text" && slot.text !== "") content.push({ type: "text", text: slot.text });
      if (slot?.kind === "tool") content.push(toolUseFromRaw({ id: slot.id, name: this.names.fromWire(slot.name) }, slot.json, { cutOff: !slot.stopped }));
    }
    return { content, usage: this.#usage, stop_reason: stopReason(this.#stop), provider_stop_reason: this.#stop, model: this.#model };
  }
}
