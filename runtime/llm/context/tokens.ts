/**
 * Token counts with a real tokenizer: o200k_base (GPT-4o and later) from gpt-tokenizer. For a
 * Claude model it is an estimate of the same order (Anthropic publishes no tokenizer); the
 * provider's own figure arrives afterwards in `LlmResponse.usage`. Message counts add the chat
 * framing overhead OpenAI documents (about 3 tokens a message, 3 to prime the reply).
 * Text is untrusted: every count and cut here is bounded in work (token-chunks.ts).
 */
import { createRequire } from "node:module";
import type { ContentBlock, Message, ToolSpec } from "../model.js";
import { chunksOf, countChunked, cutAtOrAfter, estimateFromSamples, EXACT_MAX_CHARS, samplesOf } from "./token-chunks.js";

type O200k = typeof import("gpt-tokenizer/encoding/o200k_base");
let tokenizer: O200k | undefined;
/**
 * The o200k tables cost ~90 MB once loaded: they are loaded (synchronously, through the
 * package's CommonJS build) with the first count, not with every runtime that never calls a
 * model.
 */
function o200kTokenizer(): O200k {
  tokenizer ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as O200k;
  return tokenizer;
}
const o200k = (text: string) => o200kTokenizer().countTokens(text);
const encode = (text: string) => o200kTokenizer().encode(text);
const decode = (tokens: number[]) => o200kTokenizer().decode(tokens);

export const MESSAGE_OVERHEAD = 3;
export const REPLY_OVERHEAD = 3;

/** Counts tokens of a text; swappable so a caller can plug in a provider's count. */
export type TokenCounter = (text: string) => number;

/**
 * Counts are kept for recently counted texts: a run's loop fits its whole history into the
 * budget at every Step, so without this each message was tokenized again every Step. A long
 * text is keyed by the samples its estimate reads (a fresh 20 MB JSON of the same tool input
 * is not kept again), and the keys together hold at most COUNTED_MAX_CHARS characters.
 */
const counted = new Map<string, number>();
const COUNTED_MAX = 4096;
const COUNTED_MAX_CHARS = 16 * 1024 * 1024;
let countedChars = 0;

function remember(key: string, n: number): void {
  while (counted.size > 0 && (counted.size >= COUNTED_MAX || countedChars + key.length > COUNTED_MAX_CHARS)) {
    const oldest = counted.keys().next().value as string;
    counted.delete(oldest);
    countedChars -= oldest.length;
  }
  counted.set(key, n);
  countedChars += key.length;
}

export const countTextTokens: TokenCounter = (text) => {
  if (text === "") return 0;
  const long = text.length > EXACT_MAX_CHARS;
  const samples = long ? samplesOf(text) : undefined;
  const key = samples === undefined ? text : `\u0000${text.length}\u0000${samples.join("\u0000")}`;
  const known = counted.get(key);
  if (known !== undefined) return known;
  const n = samples === undefined ? countChunked(text, o200k) : estimateFromSamples(text.length, samples, o200k);
  remember(key, n);
  return n;
};

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "tool_use":
      return `${block.name} ${JSON.stringify(block.input)}`;
    case "tool_result":
      return block.content;
  }
}

export function countMessageTokens(message: Message, count: TokenCounter = countTextTokens): number {
  return MESSAGE_OVERHEAD + message.content.reduce((sum, b) => sum + count(blockText(b)), 0);
}

/** Tokens of a text, or of messages with their framing (plus the reply primer). */
export function countTokens(input: string | readonly Message[], count: TokenCounter = countTextTokens): number {
  if (typeof input === "string") return count(input);
  return input.reduce((sum, m) => sum + countMessageTokens(m, count), REPLY_OVERHEAD);
}

/** Tokens the tool definitions take (their JSON, as both APIs send them). */
export function countToolTokens(tools: readonly ToolSpec[], count: TokenCounter = countTextTokens): number {
  return tools.length === 0 ? 0 : count(JSON.stringify(tools));
}

/**
 * The first `head` and last `tail` tokens of `text`, or undefined when it has no more than that.
 * Only as much of each end is encoded as those tokens need (chunk by chunk), and the total is
 * `countTextTokens`'s, so a huge or hostile text costs no more than its two ends.
 */
export function headAndTail(text: string, keep: { head: number; tail: number }): { head: string; tail: string; cutTokens: number; cutChars: number } | undefined {
  const { head, tail } = keep;
  // A token is at least one character: a text no longer than head + tail characters fits.
  if (text.length <= head + tail) return undefined;
  const total = countTextTokens(text);
  if (total <= head + tail) return undefined;
  const first = decode(headTokens(text, head));
  const last = tail > 0 ? decode(tailTokens(text, tail)) : "";
  return { head: first, tail: last, cutTokens: total - head - tail, cutChars: text.length - first.length - last.length };
}

function headTokens(text: string, n: number): number[] {
  const tokens: number[] = [];
  for (const chunk of chunksOf(text)) {
    if (tokens.length >= n) break;
    tokens.push(...encode(chunk));
  }
  return tokens.slice(0, n);
}

function tailTokens(text: string, n: number): number[] {
  // Widened until it holds n tokens; each try costs what it encodes, so the sum stays linear in the tail.
  for (let chars = (n + 1) * 4; ; chars *= 2) {
    const start = cutAtOrAfter(text, Math.max(0, text.length - chars));
    const tokens: number[] = [];
    for (const chunk of chunksOf(text.slice(start))) tokens.push(...encode(chunk));
    if (tokens.length > n || start === 0) return tokens.slice(Math.max(0, tokens.length - n));
  }
}
