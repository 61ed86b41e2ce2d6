/**
 * The model's answer as it streams in (the run's `text` events). To a pipe, or without colour,
 * the text is written as it arrives, token by token, exactly as the model wrote it (inert). At a
 * terminal with colour it is also shown as it arrives, and each Markdown block, once complete (a
 * paragraph at its blank line, a heading at its line end, a code block at its closing fence), is
 * redrawn rendered in place of its raw text; what is left at the end is rendered then.
 */
import { colourOn } from "./colour.js";
import { inert } from "./render.js";

export interface AnswerOutput {
  write(text: string): unknown;
  /** The terminal's width (rendering mode only: how many rows the raw text took). */
  readonly columns?: number | undefined;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(\s|$)/;

/**
 * Splits `text` into the Markdown blocks that are complete and the rest. Only whole lines count;
 * a fenced code block ends at its closing fence, whatever blank lines it holds.
 */
export function completeBlocks(text: string): { blocks: string[]; rest: string } {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let at = 0;
  for (let end = text.indexOf("\n", at); end >= 0; end = text.indexOf("\n", at)) {
    const line = text.slice(at, end);
    at = end + 1;
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
        blocks.push(text.slice(start, at));
        start = at;
      }
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    const blank = line.trim() === "";
    // A heading is a block of its own; a blank line ends the block above it.
    if ((blank && text.slice(start, at).trim() !== "") || (HEADING.test(line) && text.slice(start, at - line.length - 1).trim() === "")) {
      blocks.push(text.slice(start, at));
      start = at;
    }
  }
  return { blocks, rest: text.slice(start) };
}

export class AnswerStream {
  readonly #out: AnswerOutput;
  readonly #render: ((markdown: string) => string) | undefined;
  /** Text not yet rendered (rendering mode): the current block, raw on screen. */
  #pending = "";
  /** What is on screen of `#pending` (rendering mode), to erase when it is redrawn. */
  #shownRaw = "";
  /** The last character written, to end the answer on a line of its own. */
  #last = "\n";
  #steps = new Set<string>();

  /** `render` (a terminal with colour): Markdown to terminal text; without it the text is written as it comes. */
  constructor(out: AnswerOutput, options: { render?: (markdown: string) => string } = {}) {
    this.#out = out;
    this.#render = options.render;
  }

  /** Whether Step `stepId`'s text was shown (its answer need not be printed again). */
  shown(stepId: string): boolean {
    return this.#steps.has(stepId);
  }

  /** Text of Step `stepId` as it arrives. */
  write(stepId: string, text: string): void {
    if (text === "") return;
    this.#steps.add(stepId);
    if (this.#render === undefined) return this.#emit(inert(text));
    this.#pending += text;
    const { blocks, rest } = completeBlocks(this.#pending);
    if (blocks.length === 0) {
      const raw = inert(text);
      this.#shownRaw += raw;
      return this.#emit(raw);
    }
    this.#erase();
    for (const block of blocks) this.#emitBlock(block);
    this.#pending = rest;
    this.#shownRaw = inert(rest);
    this.#emit(this.#shownRaw);
  }

  /** The answer so far is complete (another event came, or the run ended): render the rest, end the line. */
  end(): void {
    if (this.#render !== undefined && this.#pending !== "") {
      this.#erase();
      this.#emitBlock(this.#pending);
      this.#pending = "";
      this.#shownRaw = "";
    }
    if (this.#last !== "\n") this.#emit("\n");
  }

  #emitBlock(block: string): void {
    const rendered = this.#render!(inert(block)).replace(/\n+$/, "");
    if (rendered.trim() === "") return;
    // A block that ended at a blank line keeps the gap to the next one.
    this.#emit(`${rendered}\n${/\n\s*\n$/.test(block) || FENCE.test(block) || HEADING.test(block) ? "\n" : ""}`);
  }

  /** Moves the cursor back to where the raw text of the current block began, and clears from there. */
  #erase(): void {
    if (this.#shownRaw === "") return;
    const columns = Math.max(1, this.#out.columns ?? 80);
    const rows = this.#shownRaw.split("\n").reduce((sum, line) => sum + Math.max(1, Math.ceil([...line].length / columns)), 0);
    this.#out.write(`\r${rows > 1 ? `\u001b[${rows - 1}A` : ""}\u001b[J`);
    this.#shownRaw = "";
    this.#last = "\n";
  }

  #emit(text: string): void {
    if (text === "") return;
    this.#out.write(text);
    this.#last = text.at(-1)!;
  }
}

/**
 * The answer stream for `stream`: rendered as Markdown when it is a terminal with colour. The
 * renderer (with its syntax highlighting, a good part of the command line's code) is loaded only
 * then: a command that writes to a pipe never parses it.
 */
export async function answerStream(stream: NodeJS.WriteStream): Promise<AnswerStream> {
  if (!colourOn(stream)) return new AnswerStream(stream);
  const [{ Marked }, { markedTerminal }] = await Promise.all([import("marked"), import("marked-terminal")]);
  const markdown = new Marked(markedTerminal({ reflowText: false, showSectionPrefix: false }));
  return new AnswerStream(stream, { render: (text) => markdown.parse(text) as string });
}
