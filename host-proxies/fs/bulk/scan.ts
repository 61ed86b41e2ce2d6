/**
 * Searches one file's bytes for a compiled pattern, line by line in effect, without splitting
 * the file into lines: the pattern runs over the whole text (or the bytes, for a literal) and
 * only the lines it lands on are cut out, each decided again on its own (`pattern.line`), so a
 * whole-file match that spans a line break never counts and a line matches exactly when
 * line-by-line grep says it does. A file with no candidate is never decoded.
 */
import { isUtf8 } from "node:buffer";
import type { CompiledPattern } from "./pattern.js";

/** How far into a file to look for a NUL byte, as git and grep do. */
export const SNIFF_BYTES = 8000;

export interface ScanLimits {
  contextBefore: number;
  contextAfter: number;
  maxLineLength: number;
  maxMatchesPerFile: number;
  /** Matches the whole search may still return. */
  remaining: number;
  /** `performance.now()` past which the scan stops. */
  deadline: number;
}

export interface LineHit {
  line: number;
  text: string;
  before: string[];
  after: string[];
}

export type ScanOutcome =
  | { kind: "binary" }
  /** `more`: a further match exists past `remaining`; `late`: the deadline stopped the scan. */
  | { kind: "text"; hits: LineHit[]; more: boolean; late: boolean };

/** Line access over either the bytes (literal search) or the decoded text. */
interface Lines {
  readonly length: number;
  next(from: number): number;
  previous(before: number): number;
  text(start: number, end: number): string;
  /** The offset, in characters, of `at` in the line that starts at `start`. */
  column(start: number, at: number): number;
}

const NL = 10;

export function scanFile(bytes: Buffer, pattern: CompiledPattern, limits: ScanLimits): ScanOutcome {
  // An empty file has no lines, so not even `^` matches in it.
  if (bytes.length === 0) return noHits();
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return { kind: "binary" };
  if (pattern.literal !== undefined) {
    const first = bytes.indexOf(pattern.literal);
    if (first < 0) return noHits();
    if (!isUtf8(bytes)) return { kind: "binary" };
    return collect(byteLines(bytes), limits, (from) => {
      const at = bytes.indexOf(pattern.literal!, from);
      return at < 0 ? undefined : at;
    }, () => true);
  }
  if (pattern.required !== undefined && bytes.indexOf(pattern.required) < 0) return noHits();
  if (!isUtf8(bytes)) return { kind: "binary" };
  let text = bytes.toString("utf8");
  // A byte order mark is no part of the first line (TextDecoder drops it too).
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = textLines(text);
  const verify = (start: number, end: number): boolean => pattern.line.test(lineText(lines, start, end));
  if (pattern.perLine) {
    // Lookaround: every line is decided alone, so none can see past its own end.
    return collect(lines, limits, (from) => (from < text.length ? from : undefined), verify);
  }
  const scan = pattern.scan;
  return collect(lines, limits, (from) => {
    scan.lastIndex = from;
    const m = scan.exec(text);
    return m === null ? undefined : m.index;
  }, verify);
}

function noHits(): ScanOutcome {
  return { kind: "text", hits: [], more: false, late: false };
}

/**
 * Walks the candidates `find` gives (a position in some line, or `undefined` when there are no
 * more at or after `from`), decides each candidate's line with `accept`, and reports accepted
 * lines once each, with their context.
 */
function collect(lines: Lines, limits: ScanLimits, find: (from: number) => number | undefined, accept: (start: number, end: number) => boolean): ScanOutcome {
  const hits: LineHit[] = [];
  let counted = 0;
  let lineNo = 1;
  let from = 0;
  const cap = Math.min(limits.maxMatchesPerFile, limits.remaining);
  while (from <= lines.length) {
    if (performance.now() > limits.deadline) return { kind: "text", hits, more: false, late: true };
    const at = find(from);
    if (at === undefined) break;
    const start = lines.previous(at) + 1;
    const newline = lines.next(at);
    const end = newline < 0 ? lines.length : newline;
    // Line numbers: count the line breaks between the last place counted and this line.
    for (let p = lines.next(counted); p >= 0 && p < start; p = lines.next(p + 1)) lineNo++;
    counted = start;
    from = end + 1;
    // The final line terminator ends the last line; it does not start an empty one.
    if (start === lines.length && start > 0) break;
    if (!accept(start, end)) continue;
    if (hits.length === cap) return { kind: "text", hits, more: hits.length === limits.remaining, late: false };
    const text = lineText(lines, start, end);
    hits.push({
      line: lineNo,
      text: text.length > limits.maxLineLength ? clip(text, lines.column(start, at), limits.maxLineLength) : text,
      before: contextBefore(lines, start, limits),
      after: contextAfter(lines, end, limits),
    });
  }
  return { kind: "text", hits, more: false, late: false };
}

function contextBefore(lines: Lines, start: number, limits: ScanLimits): string[] {
  const out: string[] = [];
  let end = start - 1;
  while (out.length < limits.contextBefore && end >= 0) {
    const s = lines.previous(end) + 1;
    out.unshift(clip(lineText(lines, s, end), 0, limits.maxLineLength));
    end = s - 1;
  }
  return out;
}

function contextAfter(lines: Lines, end: number, limits: ScanLimits): string[] {
  const out: string[] = [];
  let start = end + 1;
  while (out.length < limits.contextAfter && start < lines.length) {
    const newline = lines.next(start);
    const e = newline < 0 ? lines.length : newline;
    out.push(clip(lineText(lines, start, e), 0, limits.maxLineLength));
    start = e + 1;
  }
  return out;
}

/** A line without its terminator (`\n` or `\r\n`). */
function lineText(lines: Lines, start: number, end: number): string {
  const text = lines.text(start, end);
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

/** A long line cut to a window around the match; `column` is the match's offset in the line. */
export function clip(line: string, column: number, max: number): string {
  if (line.length <= max) return line;
  const at = Math.max(0, Math.min(column - Math.floor(max / 3), line.length - max));
  return `${at > 0 ? "…" : ""}${line.slice(at, at + max)}${at + max < line.length ? "…" : ""}`;
}

function byteLines(bytes: Buffer): Lines {
  // BOM: skipped from the first line's text only; offsets stay byte offsets.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return {
    length: bytes.length,
    next: (from) => bytes.indexOf(NL, from),
    previous: (before) => (before <= 0 ? -1 : bytes.lastIndexOf(NL, before - 1)),
    text: (start, end) => bytes.toString("utf8", start === 0 ? bom : start, end),
    column: (start, at) => bytes.toString("utf8", start === 0 ? bom : start, at).length,
  };
}

function textLines(text: string): Lines {
  return {
    length: text.length,
    next: (from) => text.indexOf("\n", from),
    previous: (before) => (before <= 0 ? -1 : text.lastIndexOf("\n", before - 1)),
    text: (start, end) => text.slice(start, end),
    column: (start, at) => at - start,
  };
}
