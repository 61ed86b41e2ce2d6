/**
 * The console blocks of a Markdown file, as the README test runs them: each `$ ` line a command
 * (continued while a quote is open or the line ends in `\`), the lines after it its output. An
 * HTML comment right above a block directs the test:
 *
 *   <!-- readme-test: skip REASON -->   not run (needs a model key, a long-running server, …)
 *   <!-- readme-test: setup
 *   shell lines, run before the block (files the block's commands read) -->
 *
 * Output is compared after `normalise`: ids, times, durations and hashes stand for themselves
 * only by their order of first appearance, and `…` in the shown output matches anything.
 */

export interface ConsoleStep {
  command: string;
  expected: string[];
}

export interface ConsoleBlock {
  /** 1-based line of the opening fence. */
  line: number;
  steps: ConsoleStep[];
  skip?: string;
  setup?: string;
}

const DIRECTIVE = /<!--\s*readme-test:\s*(skip|setup)\b([\s\S]*?)-->/g;

export function consoleBlocks(markdown: string): ConsoleBlock[] {
  const lines = markdown.split("\n");
  const blocks: ConsoleBlock[] = [];
  let pending: { skip?: string; setup?: string } = {};
  let commentStart = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (commentStart < 0 && line.trimStart().startsWith("<!--")) commentStart = i;
    if (commentStart >= 0) {
      if (!line.includes("-->")) continue;
      const comment = lines.slice(commentStart, i + 1).join("\n");
      commentStart = -1;
      for (const match of comment.matchAll(DIRECTIVE)) {
        if (match[1] === "skip") pending.skip = match[2]!.trim();
        else pending.setup = match[2]!.replace(/^\n/, "");
      }
      continue;
    }
    if (/^```/.test(line) && line.trim() !== "```console") {
      // Another kind of block: skip to its end; a directive above it does not carry over.
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++);
      pending = {};
      continue;
    }
    if (line.trim() !== "```console") {
      if (line.trim() !== "") pending = {};
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    blocks.push({ line: start + 1, steps: steps(body), ...pending });
    pending = {};
  }
  return blocks;
}

function steps(body: string[]): ConsoleStep[] {
  const out: ConsoleStep[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    if (!line.startsWith("$ ")) {
      out.at(-1)?.expected.push(line);
      continue;
    }
    let command = line.slice(2);
    while ((open(command) || command.endsWith("\\")) && i + 1 < body.length) command += `\n${body[++i]!}`;
    out.push({ command, expected: [] });
  }
  for (const step of out) while (step.expected.at(-1)?.trim() === "") step.expected.pop();
  return out;
}

/** Whether a shell line leaves a quote open (so the command goes on on the next line). */
function open(command: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === undefined && c === "\\") i++;
    else if (quote === undefined && (c === '"' || c === "'")) quote = c;
    else if (quote === '"' && c === "\\") i++;
    else if (c === quote) quote = undefined;
  }
  return quote !== undefined;
}

const ID = /\b(run|apr|sch|conv|tok)_([0-9a-f]{6,}[0-9a-f-]*)(…)?/g;

/**
 * The README's ids in commands, bound to the ids the commands printed: an id the README shows
 * (whole, or shortened as `apr_2b8b99ee-…`) stands for the latest id of its kind printed before
 * its first use that no other README id stands for.
 */
export class IdBindings {
  readonly #printed: string[] = [];
  readonly #bound = new Map<string, string>();

  /** Ids in what a command printed, in order. */
  saw(output: string): void {
    for (const match of output.matchAll(ID)) if (match[3] === undefined) this.#printed.push(`${match[1]}_${match[2]!.replace(/-$/, "")}`);
  }

  /** `command` with the README's ids replaced by the ones they stand for. */
  translate(command: string): string {
    return command.replace(ID, (whole, kind: string, hex: string) => {
      const key = `${kind}_${hex.slice(0, 8)}`;
      let id = this.#bound.get(key);
      if (id === undefined) {
        const taken = new Set(this.#bound.values());
        id = this.#printed.findLast((p) => p.startsWith(`${kind}_`) && !taken.has(p));
        if (id === undefined) return whole;
        this.#bound.set(key, id);
      }
      return id;
    });
  }
}

/** What may differ between two honest runs: times, durations, hashes, sizes in flux, spacing. */
export function normalise(line: string): string {
  return line
    .replace(ID, (_whole, kind: string) => `<${kind}>`)
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?/g, "<time>")
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<duration>")
    .replace(/\(in \d+[smhd]\)/g, "(in <duration>)")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>")
    .replace(/\b[0-9a-f]{12,}\b/g, "<hex>")
    .replace(/\b(tok|chv_tok)_[0-9a-f]{16}[\w-]*/g, "<token>")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Whether `actual` lines match the `expected` ones: line by line, `…` within a line matching any
 * text and a line of `…` alone any number of lines.
 */
export function matches(expected: readonly string[], actual: readonly string[]): boolean {
  const memo = new Map<string, boolean>();
  const go = (e: number, a: number): boolean => {
    const key = `${e},${a}`;
    if (memo.has(key)) return memo.get(key)!;
    let ok: boolean;
    if (e === expected.length) ok = a === actual.length;
    else if (expected[e] === "…") ok = go(e + 1, a) || (a < actual.length && go(e, a + 1));
    else ok = a < actual.length && lineMatches(expected[e]!, actual[a]!) && go(e + 1, a + 1);
    memo.set(key, ok);
    return ok;
  };
  return go(0, 0);
}

function lineMatches(expected: string, actual: string): boolean {
  if (!expected.includes("…")) return expected === actual;
  const pattern = expected
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${pattern}$`).test(actual);
}
