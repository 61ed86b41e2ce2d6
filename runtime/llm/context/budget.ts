/**
 * Fitting a conversation into a token budget:
 * 1. every tool result longer than `keepHeadTail.head + keepHeadTail.tail` tokens keeps its first
 *    and last tokens, with a marker saying how much was cut (the start of an output usually says
 *    what it is, the end how it finished — errors, totals);
 * 2. while over budget, the oldest droppable unit goes: a unit is one message, or an assistant
 *    message with tool_use blocks together with the user message holding their results (the APIs
 *    refuse a tool_result without its tool_use and vice versa). The unit holding the latest user
 *    text (the task or the latest question) and the most recent unit are never dropped;
 * 3. when anything was dropped, a short user note at the front says so, which also keeps the
 *    conversation starting with a user turn as the APIs require.
 * The result says whether it fits; when it cannot, the caller decides (fail the Step, summarise).
 */
import type { LlmRequest, Message } from "../model.js";
import { countMessageTokens, countTextTokens, countToolTokens, headAndTail, REPLY_OVERHEAD, type TokenCounter } from "./tokens.js";

export interface HeadTail {
  head: number;
  tail: number;
}

export const DEFAULT_HEAD_TAIL: HeadTail = { head: 2000, tail: 1000 };

export interface FitOptions {
  /** Tokens the messages may take. */
  budget: number;
  /** Tool results over head + tail tokens keep only those (default 2000 + 1000). */
  keepHeadTail?: HeadTail;
  count?: TokenCounter;
}

export interface FitResult {
  messages: Message[];
  /** Tokens of `messages` as counted. */
  tokens: number;
  fits: boolean;
  /** Messages dropped (the note is not counted). */
  dropped: number;
  /** Tool results cut to head and tail. */
  truncated: number;
}

export function truncationMarker(cutTokens: number, cutChars: number): string {
  return `\n[… ${cutTokens.toLocaleString("en-US")} tokens (${cutChars.toLocaleString("en-US")} characters) cut from the middle of this output …]\n`;
}

export function droppedNote(count: number): string {
  return `[${count} earlier message${count === 1 ? " was" : "s were"} dropped to fit the context budget.]`;
}

function truncateResults(messages: readonly Message[], keep: HeadTail): { messages: Message[]; truncated: number } {
  let truncated = 0;
  const out = messages.map((m) => {
    if (!m.content.some((b) => b.type === "tool_result")) return m;
    const content = m.content.map((b) => {
      if (b.type !== "tool_result") return b;
      const cut = headAndTail(b.content, keep);
      if (cut === undefined) return b;
      truncated++;
      return { ...b, content: `${cut.head}${truncationMarker(cut.cutTokens, cut.cutChars)}${cut.tail}` };
    });
    return { ...m, content };
  });
  return { messages: out, truncated };
}

/** Message index ranges [start, end) that are dropped together. */
function units(messages: readonly Message[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < messages.length; ) {
    const m = messages[i] as Message;
    const paired = m.role === "assistant" && m.content.some((b) => b.type === "tool_use") && messages[i + 1]?.role === "user";
    const end = paired ? i + 2 : i + 1;
    out.push([i, end]);
    i = end;
  }
  return out;
}

function latestUserText(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "user" && m.content.some((b) => b.type === "text")) return i;
  }
  return -1;
}

export function fitToBudget(messages: readonly Message[], options: FitOptions): FitResult {
  const count = options.count ?? countTextTokens;
  const cut = truncateResults(messages, options.keepHeadTail ?? DEFAULT_HEAD_TAIL);
  const all = cut.messages;
  const sizes = all.map((m) => countMessageTokens(m, count));
  const total = (keep: readonly boolean[], note: number) => sizes.reduce((sum, s, i) => sum + (keep[i] ? s : 0), REPLY_OVERHEAD + note);
  const keep = all.map(() => true);
  const parts = units(all);
  const latest = latestUserText(all);
  const protectedUnit = (u: [number, number]) => (latest >= u[0] && latest < u[1]) || u === parts[parts.length - 1];
  let dropped = 0;
  let noteTokens = 0;
  for (const u of parts) {
    if (total(keep, noteTokens) <= options.budget) break;
    if (protectedUnit(u)) continue;
    for (let i = u[0]; i < u[1]; i++) keep[i] = false;
    dropped += u[1] - u[0];
    noteTokens = countMessageTokens({ role: "user", content: [{ type: "text", text: droppedNote(dropped) }] }, count);
  }
  const kept = all.filter((_, i) => keep[i]);
  const out = dropped > 0 ? [{ role: "user" as const, content: [{ type: "text" as const, text: droppedNote(dropped) }] }, ...kept] : kept;
  const tokens = total(keep, noteTokens);
  return { messages: out, tokens, fits: tokens <= options.budget, dropped, truncated: cut.truncated };
}

export interface FitRequestOptions {
  /** The model's context window in tokens. */
  contextTokens: number;
  keepHeadTail?: HeadTail;
  count?: TokenCounter;
}

/** Fits a request's messages into what the context window leaves after system, tools and max_tokens. */
export function fitRequest(request: LlmRequest, options: FitRequestOptions): FitResult & { request: LlmRequest; budget: number } {
  const count = options.count ?? countTextTokens;
  const budget = options.contextTokens - request.max_tokens - count(request.system) - countToolTokens(request.tools, count);
  const result = fitToBudget(request.messages, { budget, count, ...(options.keepHeadTail ? { keepHeadTail: options.keepHeadTail } : {}) });
  return { ...result, budget, request: { ...request, messages: result.messages } };
}
