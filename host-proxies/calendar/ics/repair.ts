/**
 * Real exports break RFC 5545 in known ways; this pass mends what it safely can, drops what
 * it cannot, and says what it did (notes), before ical.js parses the text. Mended or dropped:
 * - lines folded in the middle of a UTF-8 sequence (Apple, Google): unfolded as bytes, then
 *   decoded (RFC 5545 §3.1 folds octets, not characters);
 * - a property whose value sits inside its last quoted parameter, as Exchange 2010 published
 *   `DTSTART;TZID="W. Europe Standard Time:20200609T090000"`: the value is moved out;
 * - a property with no value at all, e.g. Sixt's `ORGANIZER;CN=Sixt SE` (collective/icalendar
 *   issue 348): dropped;
 * - after a failed parse, each line ical.js cannot read on its own: dropped.
 * Over-long lines that were never folded (Sixt) need no mending: ical.js reads them as they are.
 */
import ICAL from "ical.js";

export interface RepairedText {
  /** Unfolded, CRLF-separated content lines. */
  text: string;
  /** One sentence per mended or dropped line. */
  notes: string[];
}

const MAX_NOTE_LINE = 80;

/** Unfolds, decodes and mends `bytes` (see the file comment). */
export function repairIcs(bytes: Uint8Array): RepairedText {
  // latin1 maps each byte to one code unit, so unfolding here never splits a UTF-8 sequence.
  const unfolded = Buffer.from(bytes).toString("latin1").replace(/\r?\n[ \t]/g, "");
  const decoded = Buffer.from(unfolded, "latin1").toString("utf8").replace(/^\uFEFF/, "");
  const notes: string[] = [];
  const lines: string[] = [];
  for (const line of decoded.split(/\r\n|\n|\r/)) {
    if (line.trim() === "") continue;
    const mended = mendLine(line);
    if (mended === line) lines.push(line);
    else if (mended === undefined) notes.push(`dropped ${quote(line)}: a property with no value`);
    else {
      notes.push(`read ${quote(line)} as ${quote(mended)}: its value was inside the quoted parameter`);
      lines.push(mended);
    }
  }
  return { text: `${lines.join("\r\n")}\r\n`, notes };
}

/**
 * Drops every line ical.js cannot parse on its own (BEGIN/END are kept: the structure is not
 * guessed at). Used only after a whole-file parse failed, so good files pay nothing.
 */
export function dropUnreadableLines(repaired: RepairedText): RepairedText {
  const notes = [...repaired.notes];
  const kept = repaired.text.split("\r\n").filter((line) => {
    if (line === "" || /^(BEGIN|END):/i.test(line)) return true;
    try {
      ICAL.parse.property(line);
      return true;
    } catch (error) {
      notes.push(`dropped ${quote(line)}: ${error instanceof Error ? error.message.slice(0, 120) : "unreadable"}`);
      return false;
    }
  });
  return { text: kept.join("\r\n"), notes };
}

/** The line unchanged, mended, or `undefined` to drop it. */
function mendLine(line: string): string | undefined {
  const colon = valueColon(line);
  if (colon !== -1) return line;
  const lastQuote = line.lastIndexOf('"');
  const openQuote = line.lastIndexOf('"', lastQuote - 1);
  if (lastQuote === line.length - 1 && openQuote > 0) {
    const inner = line.slice(openQuote + 1, lastQuote);
    const split = inner.lastIndexOf(":");
    if (split > 0 && split < inner.length - 1) {
      return `${line.slice(0, openQuote)}"${inner.slice(0, split)}":${inner.slice(split + 1)}`;
    }
  }
  return undefined;
}

/** Index of the `:` that starts the value (outside quoted parameter values), or -1. */
function valueColon(line: string): number {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ":" && !quoted) return i;
  }
  return -1;
}

function quote(line: string): string {
  return JSON.stringify(line.length > MAX_NOTE_LINE ? `${line.slice(0, MAX_NOTE_LINE)}…` : line);
}
