/**
 * Reads tool calls out of a model's text (the text protocol's grammar, docs/tool-protocol.md):
 *
 *   <tool_call name="plugin.tool">{"path": "/workspace/a.txt"}</tool_call>
 *
 * The body is one JSON object, or the same object in TOON (`path: /workspace/a.txt`), optionally
 * inside a Markdown code fence; an empty body or `<tool_call name="x"/>` is `{}`. Text outside
 * the elements is the model's text. A call that cannot be read — no name, a tag never closed
 * (a cut-off answer), a body that is not an object — still becomes a ToolCall, with `input_error`
 * and `raw_input` set exactly as the native adapters set them for broken JSON arguments, so the
 * run loop answers it on its one path (refusal on record, a correction the model sees, the
 * invalid-turn streak that ends the run).
 */
import { decode as fromToon } from "@toon-format/toon";
import { text, type ContentBlock, type ToolUseBlock } from "../model.js";

export const OPEN_TAG = "<tool_call";
export const CLOSE_TAG = "</tool_call>";
/** A call's body past this is refused unread (the whole answer is capped by max_response_bytes). */
const MAX_BODY_CHARS = 256 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const NAME_ATTRIBUTE = /(?:^|\s)name\s*=\s*(?:"([^"]*)"|'([^']*)')/;
const FENCE = /^```[A-Za-z0-9_-]*\n([\s\S]*?)\n?```$/;
const EXAMPLE = '<tool_call name="plugin.tool">{"argument": "value"}</tool_call>';

export interface ParseOptions {
  /** The id of the n-th call found (the provider gives ids unique within a run). */
  newId: () => string;
}

/** Whether `<tool_call` at `at` opens an element (not `<tool_calls`, not prose like `<tool_call_x`). */
export function opensTag(source: string, at: number): boolean {
  const next = source[at + OPEN_TAG.length];
  return next === undefined || /[\s>/]/.test(next);
}

function nextOpen(source: string, from: number): number {
  for (let at = source.indexOf(OPEN_TAG, from); at >= 0; at = source.indexOf(OPEN_TAG, at + 1)) {
    if (opensTag(source, at)) return at;
  }
  return -1;
}

/**
 * `indexOf` from increasing positions, remembering each answer: a hostile answer of a million
 * `<tool_call` with no `>` after them would otherwise rescan the rest of the text once per tag.
 */
class Finder {
  readonly #source: string;
  readonly #found = new Map<string, { from: number; at: number }>();

  constructor(source: string) {
    this.#source = source;
  }

  find(needle: string, from: number): number {
    const known = this.#found.get(needle);
    // Valid while `from` lies between the last search's start and its answer (or it found none).
    if (known !== undefined && known.from <= from && (known.at < 0 || known.at >= from)) return known.at;
    const at = this.#source.indexOf(needle, from);
    this.#found.set(needle, { from, at });
    return at;
  }
}

/** The model's text as content blocks: text outside the calls, a ToolCall for each element. */
export function parseToolCalls(source: string, options: ParseOptions): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  const pushText = (value: string) => {
    if (value.trim() !== "") blocks.push(text(value));
  };
  let from = 0;
  const finder = new Finder(source);
  for (let open = nextOpen(source, 0); open >= 0; open = nextOpen(source, from)) {
    pushText(source.slice(from, open));
    const call = readCall(source, open, { ...options, finder });
    blocks.push(call.block);
    from = call.end;
  }
  pushText(source.slice(from));
  return blocks;
}

/** The element opening at `open`, and where the text after it starts. */
function readCall(source: string, open: number, options: ParseOptions & { finder: Finder }): { block: ToolUseBlock; end: number } {
  const tagEnd = options.finder.find(">", open);
  const following = nextOpen(source, open + 1);
  if (tagEnd < 0 || (following >= 0 && tagEnd > following)) {
    const end = following >= 0 ? following : source.length;
    return { block: broken(options, "tool_call", source.slice(open, end), `the <tool_call> tag was not closed with ">"; write ${EXAMPLE}`), end };
  }
  const attributes = source.slice(open + OPEN_TAG.length, tagEnd);
  const selfClosing = attributes.trimEnd().endsWith("/");
  const match = NAME_ATTRIBUTE.exec(selfClosing ? attributes.trimEnd().slice(0, -1) : attributes);
  const name = match?.[1] ?? match?.[2];
  let body = "";
  let end = tagEnd + 1;
  let problem: string | undefined;
  if (!selfClosing) {
    const close = options.finder.find(CLOSE_TAG, tagEnd + 1);
    // A call never closed, or a second one opened inside it: what is there is refused, not guessed at.
    if (close < 0 || (following >= 0 && following < close)) {
      end = following >= 0 && (close < 0 || following < close) ? following : source.length;
      problem = `the <tool_call> element was not closed with ${CLOSE_TAG} (was the answer cut off?)`;
    } else end = close + CLOSE_TAG.length;
    body = source.slice(tagEnd + 1, problem === undefined ? end - CLOSE_TAG.length : end);
  }
  const raw = source.slice(open, end);
  if (name === undefined || !NAME.test(name)) {
    const why = name === undefined ? 'the <tool_call> tag has no name="…" attribute' : `${JSON.stringify(name.slice(0, 200))} is not a tool name`;
    return { block: broken(options, name !== undefined && NAME.test(name) ? name : "tool_call", raw, `${why}; write ${EXAMPLE}`), end };
  }
  if (problem !== undefined) return { block: broken(options, name, raw, problem), end };
  const input = readArguments(body);
  if (typeof input === "string") return { block: broken(options, name, body, input), end };
  return { block: { type: "tool_use", id: options.newId(), name, input }, end };
}

/** The arguments object of a call's body, or what is wrong with it. */
export function readArguments(body: string): Record<string, unknown> | string {
  if (body.length > MAX_BODY_CHARS) return `the arguments are ${body.length} characters, more than ${MAX_BODY_CHARS}`;
  let inner = body.trim();
  const fenced = FENCE.exec(inner);
  if (fenced) inner = (fenced[1] ?? "").trim();
  if (inner === "") return {};
  let value: unknown;
  try {
    value = inner.startsWith("{") || inner.startsWith("[") ? JSON.parse(inner) : fromToon(inner);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return `the arguments are neither a JSON object nor TOON (${detail.slice(0, 300)})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `the arguments must be one object of named arguments, not ${Array.isArray(value) ? "an array" : typeof value === "object" ? "null" : `a ${typeof value}`}`;
  return value as Record<string, unknown>;
}

function broken(options: ParseOptions, name: string, raw: string, problem: string): ToolUseBlock {
  return { type: "tool_use", id: options.newId(), name, input: {}, input_error: problem, raw_input: raw };
}
