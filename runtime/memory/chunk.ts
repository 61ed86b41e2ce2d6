/**
 * Splits an episode's Markdown into chunks: one per heading section (keeping the heading path,
 * e.g. ["Providers", "Retries"]), and a sliding character window over a section longer than
 * `maxChars`. Headings inside fenced code blocks are text (a shell transcript's `# comment` is
 * not a section).
 */
export interface Chunk {
  /** Headings from the outermost to the section's own; empty before the first heading. */
  headingPath: string[];
  text: string;
}

export interface ChunkOptions {
  /** A section longer than this is windowed. Default 1200 characters (≈ 300 tokens). */
  maxChars?: number;
  /** Characters shared by consecutive windows. Default 200. */
  overlapChars?: number;
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;

export function chunkMarkdown(text: string, options: ChunkOptions = {}): Chunk[] {
  const maxChars = options.maxChars ?? 1200;
  const overlapChars = options.overlapChars ?? 200;
  if (!(maxChars > 0) || !(overlapChars >= 0) || overlapChars >= maxChars) {
    throw new RangeError(`chunk options: overlapChars (${overlapChars}) must be ≥ 0 and below maxChars (${maxChars})`);
  }
  const chunks: Chunk[] = [];
  for (const section of sections(text)) {
    for (const piece of windows(section.text, maxChars, overlapChars)) chunks.push({ headingPath: section.headingPath, text: piece });
  }
  return chunks;
}

interface Section {
  headingPath: string[];
  text: string;
}

function sections(text: string): Section[] {
  const out: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  let lines: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    const body = lines.join("\n").trim();
    if (body.length > 0) out.push({ headingPath: stack.map((h) => h.title), text: body });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch !== null) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    }
    const heading = fence === undefined && fenceMatch === null ? HEADING.exec(line) : null;
    if (heading === null) {
      lines.push(line);
      continue;
    }
    flush();
    const level = heading[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, title: heading[2]! });
  }
  flush();
  return out;
}

/** Windows of at most `size` characters, cut at whitespace where one is near the end. */
function windows(text: string, size: number, overlap: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      const newline = text.lastIndexOf("\n", end);
      const cut = Math.max(space, newline);
      if (cut > start + size / 2) end = cut;
    }
    out.push(text.slice(start, end).trim());
    if (end >= text.length) break;
    start = Math.max(end - overlap, start + 1);
  }
  return out.filter((piece) => piece.length > 0);
}
