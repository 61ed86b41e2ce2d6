/**
 * Real exports break RFC 5545 in known ways; this pass mends what it safely can, drops what
 * it cannot, and says what it did (warnings naming the component's UID), before ical.js
 * parses the text. Mended or dropped:
 * - lines folded in the middle of a UTF-8 sequence (Apple, Google): unfolded as bytes, then
 *   decoded (RFC 5545 §3.1 folds octets, not characters);
 * - a file of bare components (a VEVENT saved on its own, as mail clients attach them): read
 *   as one VCALENDAR, as the clients that open such files do;
 * - a property whose value sits inside its last quoted parameter, as Exchange 2010 published
 *   `DTSTART;TZID="W. Europe Standard Time:20200609T090000"`: the value is moved out;
 * - dates written without `VALUE=DATE` (`DTSTART:20240101`, `EXDATE:20200116`): read as dates,
 *   as every major client does (mending only; nothing is lost, so no warning);
 * - a property with no value at all, e.g. Sixt's `ORGANIZER;CN=Sixt SE` (collective/icalendar
 *   issue 348), or an empty `RDATE:` or `RRULE:`: dropped;
 * - RRULEs in another calendar scale, or with SKIP (RFC 7529): see rscale.ts;
 * - one unreadable value in an EXDATE/RDATE list: only that value is dropped, so a bad EXDATE
 *   can never take its whole series with it;
 * - text outside any component — Podio's `X-COMMENT:Cached from …` after `END:VCALENDAR`
 *   (collective/icalendar issue 350), a stray `END:`, a banner before `BEGIN:VCALENDAR`: dropped,
 *   with one warning per run of such lines (ical.js fails on it with a TypeError);
 * - after a failed parse, each line ical.js cannot read on its own: dropped.
 * Over-long lines that were never folded (Sixt) need no mending: ical.js reads them as they are.
 */
import ICAL from "ical.js";
import { mendDateLine } from "./date-values.js";
import { mendRscale } from "./rscale.js";
import { reasonOf } from "./unreadable.js";
import type { CalendarWarning } from "./warnings.js";

export interface RepairedText {
  /** Unfolded, CRLF-separated content lines. */
  text: string;
  /** One per mended or dropped line, with the UID of the component it was in. */
  warnings: CalendarWarning[];
}

const MAX_NOTE_LINE = 80;
/** Properties whose value is not text: empty, they mean nothing, and ical.js fails on them with a TypeError. */
const TYPED = new Set(["RRULE", "EXRULE", "DURATION", "SEQUENCE", "PRIORITY", "GEO", "TRIGGER", "REPEAT", "PERCENT-COMPLETE", "TZOFFSETFROM", "TZOFFSETTO", "DTSTAMP", "CREATED", "LAST-MODIFIED", "COMPLETED"]);
const BARE = /^BEGIN:(VEVENT|VTODO|VJOURNAL|VFREEBUSY|VTIMEZONE)\s*$/i;

/** Unfolds, decodes and mends `bytes` (see the file comment). */
export function repairIcs(bytes: Uint8Array): RepairedText {
  // latin1 maps each byte to one code unit, so unfolding here never splits a UTF-8 sequence.
  const unfolded = Buffer.from(bytes).toString("latin1").replace(/\r?\n[ \t]/g, "");
  const decoded = Buffer.from(unfolded, "latin1").toString("utf8").replace(/^\uFEFF/, "");
  const input = decoded.split(/\r\n|\n|\r/).filter((line) => line.trim() !== "");
  const sink = new ComponentWarnings();
  if (input[0] !== undefined && BARE.test(input[0])) {
    input.unshift("BEGIN:VCALENDAR");
    input.push("END:VCALENDAR");
  }
  const lines: string[] = [];
  const outside = new OutsideText(sink);
  for (const line of input) {
    if (outside.drops(line)) continue;
    sink.track(line, lines.length);
    const mended = mendLine(line);
    if (mended.line !== undefined) lines.push(mended.line);
    if (mended.why !== undefined) sink.add(mended.why);
    sink.close(line, lines);
  }
  outside.flush();
  return { text: `${lines.join("\r\n")}\r\n`, warnings: sink.warnings };
}

/**
 * Lines at depth 0 that open nothing: dropped, each run of them told once (its first line and
 * how many), so a cached-at stamp or a banner never costs the calendar.
 */
class OutsideText {
  readonly #sink: ComponentWarnings;
  #depth = 0;
  #calendars = 0;
  #run: { first: string; count: number } | undefined;

  constructor(sink: ComponentWarnings) {
    this.#sink = sink;
  }

  /** Whether `line` lies outside every component (and is dropped); tracks nesting otherwise. */
  drops(line: string): boolean {
    if (/^BEGIN:/i.test(line)) {
      this.flush();
      if (this.#depth === 0) this.#calendars++;
      this.#depth++;
      return false;
    }
    if (this.#depth > 0) {
      if (/^END:/i.test(line)) this.#depth--;
      return false;
    }
    if (this.#run === undefined) this.#run = { first: line, count: 0 };
    this.#run.count++;
    return true;
  }

  flush(): void {
    const run = this.#run;
    if (run === undefined) return;
    this.#run = undefined;
    const where = this.#calendars === 0 ? "before the first BEGIN:VCALENDAR" : "after END:VCALENDAR";
    const what = run.count === 1 ? `${quote(run.first)}` : `${run.count} lines from ${quote(run.first)} on`;
    this.#sink.add(`dropped ${what}: text ${where}, outside the calendar`);
  }
}

/**
 * Drops every line ical.js cannot parse on its own (BEGIN/END are kept: the structure is not
 * guessed at). Used only after a whole-file parse failed, so good files pay nothing.
 */
export function dropUnreadableLines(repaired: RepairedText): RepairedText {
  const sink = new ComponentWarnings(repaired.warnings);
  const kept: string[] = [];
  for (const line of repaired.text.split("\r\n")) {
    sink.track(line, kept.length);
    if (line === "" || /^(BEGIN|END):/i.test(line)) kept.push(line);
    else {
      try {
        ICAL.parse.property(line);
        kept.push(line);
      } catch (error) {
        sink.add(`dropped ${quote(line)}: ${reasonOf(error, "a line ical.js cannot read")}`);
      }
    }
    sink.close(line, kept);
  }
  return { text: kept.join("\r\n"), warnings: sink.warnings };
}

/**
 * Collects warnings per top-level component and names them by its UID once its END is seen
 * (the UID may come after the line that was mended).
 */
class ComponentWarnings {
  readonly warnings: CalendarWarning[];
  #depth = 0;
  #start = -1;
  #pending: string[] = [];

  constructor(initial: CalendarWarning[] = []) {
    this.warnings = [...initial];
  }

  track(line: string, index: number): void {
    if (!/^BEGIN:/i.test(line)) return;
    this.#depth++;
    if (this.#depth === 2) this.#start = index;
  }

  add(reason: string): void {
    if (this.#depth >= 2) this.#pending.push(reason);
    else this.warnings.push({ reason });
  }

  close(line: string, lines: readonly string[]): void {
    if (!/^END:/i.test(line)) return;
    if (this.#depth === 2) {
      const uid = uidIn(lines.slice(this.#start));
      for (const reason of this.#pending) this.warnings.push(uid === undefined ? { reason } : { uid, reason });
      this.#pending = [];
    }
    this.#depth = Math.max(0, this.#depth - 1);
  }
}

function uidIn(lines: readonly string[]): string | undefined {
  let depth = 0;
  for (const line of lines) {
    if (/^BEGIN:/i.test(line)) depth++;
    else if (/^END:/i.test(line)) depth--;
    else if (depth === 1 && /^UID[;:]/i.test(line)) {
      const value = line.slice(valueColon(line) + 1).trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}

/** The line unchanged or mended (`line`), or dropped (`line` undefined); `why` when not unchanged. */
function mendLine(line: string): { line?: string | undefined; why?: string } {
  const colon = valueColon(line);
  if (colon !== -1) {
    const name = (/^[^;:]*/.exec(line)?.[0] ?? "").toUpperCase();
    if (TYPED.has(name) && line.slice(colon + 1).trim() === "") return { why: `dropped ${quote(line)}: an empty ${name}` };
    if (name === "RRULE" || name === "EXRULE") return mendRscale(line, colon);
    return mendDateLine(line, colon);
  }
  const lastQuote = line.lastIndexOf('"');
  const openQuote = line.lastIndexOf('"', lastQuote - 1);
  if (lastQuote === line.length - 1 && openQuote > 0) {
    const inner = line.slice(openQuote + 1, lastQuote);
    const split = inner.lastIndexOf(":");
    if (split > 0 && split < inner.length - 1) {
      const mended = `${line.slice(0, openQuote)}"${inner.slice(0, split)}":${inner.slice(split + 1)}`;
      const again = mendDateLine(mended, valueColon(mended));
      return { line: again.line, why: `read ${quote(line)} as ${quote(mended)}: its value was inside the quoted parameter` };
    }
  }
  return { line: undefined, why: `dropped ${quote(line)}: a property with no value` };
}

/** Index of the `:` that starts the value (outside quoted parameter values), or -1. */
export function valueColon(line: string): number {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ":" && !quoted) return i;
  }
  return -1;
}

export function quote(line: string): string {
  return JSON.stringify(line.length > MAX_NOTE_LINE ? `${line.slice(0, MAX_NOTE_LINE)}…` : line);
}
