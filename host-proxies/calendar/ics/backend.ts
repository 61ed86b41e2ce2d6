/**
 * The embedded calendar backend: one iCalendar file per calendar id, `<dir>/<id>.ics`
 * (`primary` → `primary.ics`, which exists as an empty calendar until its first event).
 * Listing parses the file with ical.js and expands recurrences in the window (expand.ts), in a
 * parse worker under a deadline (parse-job.ts: a hostile file cannot stall the server);
 * adding appends a VEVENT (and, when the file lacks it, a VTIMEZONE for its zone), checks that
 * the new file reads the event back exactly as asked, and only then replaces the file.
 */
import { randomUUID } from "node:crypto";
import { InvalidInputError } from "../../../runtime/errors.js";
import { sharedParsePool } from "../../_parse/pool.js";
import type { ParsePool } from "../../_parse/pool.js";
import { HostProxyError } from "../../types.js";
import { canonicalZone, formatInstant, instantOf } from "../time.js";
import type { CalendarBackend, CalendarEvent, CalendarInfo, CheckedNewEvent, EventQuery, ListOptions } from "../types.js";
import type { Window } from "./expand.js";
import type { CalendarJobOutput } from "./parse-job.js";
import { byStart, instantOfEventTime, matchesQuery } from "./query.js";
import { CalendarFiles } from "./store.js";
import { vtimezoneLines } from "./vtimezone.js";
import { formatWarning } from "./warnings.js";
import { emptyCalendar, insertBeforeEnd, veventLines } from "./write.js";

export interface IcsFileBackendOptions {
  /** Zone for floating times and all-day dates of files without `X-WR-TIMEZONE`; default `UTC`. */
  timeZone?: string;
  /** Default `() => new Date()`; stamps DTSTAMP/CREATED. */
  clock?: () => Date;
  /** Default `<uuid>@clawhive`. */
  newUid?: () => string;
  /** Told (as one line each) what was mended, dropped or guessed while reading a file; every listing also tells its caller (`ListOptions.onWarning`). */
  onNote?: (calendarId: string, note: string) => void;
  /** Largest file read; default 16 MiB. */
  maxFileBytes?: number;
  /** Occurrences a series may run through before a window ends; default 100 000. */
  maxOccurrencesPerSeries?: number;
  /** Where files are parsed and expanded; default the process's shared pool. */
  parsePool?: ParsePool;
}

const PRIMARY = "primary";
const NAME_BYTES = 64 * 1024;
const DAY_MS = 86_400_000;

export class IcsFileBackend implements CalendarBackend {
  readonly #files: CalendarFiles;
  readonly #zone: string;
  readonly #clock: () => Date;
  readonly #newUid: () => string;
  readonly #onNote: IcsFileBackendOptions["onNote"];
  readonly #maxOccurrences: number | undefined;
  readonly #pool: ParsePool;

  /** Throws `InvalidInputError` on a bad `timeZone` or `maxFileBytes`. */
  constructor(dir: string, options: IcsFileBackendOptions = {}) {
    const zone = canonicalZone(options.timeZone ?? "UTC");
    if (zone === undefined) throw new InvalidInputError(`IcsFileBackend: timeZone ${JSON.stringify(options.timeZone)} is not an IANA time zone`, { field: "timeZone" });
    const max = options.maxFileBytes ?? 16 * 1024 * 1024;
    if (!Number.isInteger(max) || max < 1) throw new InvalidInputError("IcsFileBackend: maxFileBytes must be a positive integer", { field: "maxFileBytes" });
    this.#files = new CalendarFiles(dir, max);
    this.#zone = zone;
    this.#clock = options.clock ?? (() => new Date());
    this.#newUid = options.newUid ?? (() => `${randomUUID()}@clawhive`);
    this.#onNote = options.onNote;
    this.#maxOccurrences = options.maxOccurrencesPerSeries;
    this.#pool = options.parsePool ?? sharedParsePool();
  }

  async listCalendars(): Promise<CalendarInfo[]> {
    const ids = new Set([PRIMARY, ...(await this.#files.ids())]);
    const infos: CalendarInfo[] = [];
    for (const id of ids) {
      const head = await this.#files.head(id, NAME_BYTES);
      infos.push({ id, summary: (head && calendarName(head)) ?? id, primary: id === PRIMARY });
    }
    return infos.sort((a, b) => Number(b.primary) - Number(a.primary) || (a.id < b.id ? -1 : 1));
  }

  async listEvents(query: EventQuery, options: ListOptions = {}): Promise<CalendarEvent[]> {
    const bytes = await this.#existing(query.calendarId);
    if (bytes === undefined) return [];
    const window = { min: instantOf(query.timeMin) ?? Number.NaN, max: instantOf(query.timeMax) ?? Number.NaN };
    const calendar = await this.#parse(bytes, { id: query.calendarId, window, expand: true });
    const events = calendar.events.filter((e) => matchesQuery(e, query.query));
    this.#report(query.calendarId, calendar, options.onWarning);
    return events.sort(byStart(calendar.floatingZone)).slice(0, query.maxResults);
  }

  async addEvent(event: CheckedNewEvent): Promise<CalendarEvent> {
    return this.#files.exclusive(event.calendarId, async () => {
      const id = event.calendarId;
      let bytes = await this.#existing(id);
      if (bytes === undefined) {
        await this.#files.ensureDirectory();
        bytes = Buffer.from(emptyCalendar(), "utf8");
      }
      const start = instantOfEventTime(event.start, this.#zone);
      const end = instantOfEventTime(event.end, this.#zone);
      const window = { min: start - DAY_MS, max: end + DAY_MS };
      const before = await this.#parse(bytes, { id, window, expand: false });
      const uid = this.#newUid();
      const lines = [...this.#zoneLines(event, before), ...veventLines(event, { uid, now: this.#clock() })];
      const updated = insertBeforeEnd(bytes, lines, { label: `calendar ${id}` });
      const written = (await this.#parse(updated, { id, window, expand: true, maxOccurrences: undefined })).events.find((e) => e.id === uid);
      checkReadBack(event, { got: written, definedTzids: new Set(before.definedTzids) });
      await this.#files.replace(id, updated);
      return written as CalendarEvent;
    });
  }

  /** The file, `undefined` for a `primary` not yet written; not-found for other missing ids. */
  async #existing(id: string): Promise<Buffer | undefined> {
    const bytes = await this.#files.read(id);
    if (bytes === undefined && id !== PRIMARY) throw HostProxyError.notFound(`calendar ${id}: no such calendar (no ${id}.ics in the calendar directory)`);
    return bytes;
  }

  /** Parsed (and expanded in `window`) in a parse worker; the series cap is the backend's unless given. */
  #parse(bytes: Uint8Array, o: { id: string; window: Window; expand: boolean; maxOccurrences?: number | undefined }): Promise<CalendarJobOutput> {
    const { id, window } = o;
    const years = { fromYear: new Date(window.min).getUTCFullYear() - 1, toYear: new Date(window.max).getUTCFullYear() + 1 };
    const maxOccurrences = "maxOccurrences" in o ? o.maxOccurrences : this.#maxOccurrences;
    const parse = { defaultZone: this.#zone, years, label: `calendar ${id}` };
    return this.#pool.run("calendar.events", { bytes, parse, window, calendarId: id, expand: o.expand, maxOccurrences }, `calendar ${id}`);
  }

  /** A VTIMEZONE for each zone the event names that the file does not define. */
  #zoneLines(event: CheckedNewEvent, calendar: CalendarJobOutput): string[] {
    const zones = new Set([event.start.timeZone, event.end.timeZone].filter((z): z is string => z !== undefined && !calendar.definedTzids.includes(z)));
    const years = {
      fromYear: new Date(instantOfEventTime(event.start, this.#zone)).getUTCFullYear() - 1,
      toYear: new Date(instantOfEventTime(event.end, this.#zone)).getUTCFullYear() + 1,
    };
    return [...zones].flatMap((zone) => vtimezoneLines(zone, years));
  }

  #report(id: string, calendar: CalendarJobOutput, onWarning: ListOptions["onWarning"]): void {
    for (const warning of calendar.warnings) {
      this.#onNote?.(id, formatWarning(warning));
      onWarning?.(warning);
    }
  }
}

/**
 * The event as the new file reads back must be the event asked for; if not, nothing is written.
 * The one way a correct writer gets here: the file already defines the zone's VTIMEZONE, and
 * that definition disagrees with the IANA database at this time.
 */
function checkReadBack(asked: CheckedNewEvent, read: { got: CalendarEvent | undefined; definedTzids: Set<string> }): void {
  const { got, definedTzids: defined } = read;
  const same = (a: CalendarEvent["start"], b: CalendarEvent["start"]) =>
    a.date === b.date && instantOf(a.dateTime ?? "") === instantOf(b.dateTime ?? "") && a.timeZone === b.timeZone;
  if (got !== undefined && same(asked.start, got.start) && same(asked.end, got.end)) {
    const fields = got.summary === asked.summary && got.description === asked.description && got.location === asked.location;
    if (fields && got.attendees.join(",") === asked.attendees.join(",")) return;
    throw HostProxyError.io(`calendar ${asked.calendarId}: the event did not read back as written; nothing was written`);
  }
  const zone = asked.start.timeZone ?? asked.end.timeZone;
  if (got !== undefined && zone !== undefined && defined.has(zone)) {
    const at = formatInstant(instantOfEventTime(asked.start, "UTC"));
    throw HostProxyError.invalidInput(
      `calendar.addEvent: the calendar file's own VTIMEZONE for ${zone} disagrees with the IANA time zone database at ${at}; give the times in UTC or fix that VTIMEZONE`,
    );
  }
  throw HostProxyError.io(`calendar ${asked.calendarId}: the event did not read back as written; nothing was written`);
}

/** `X-WR-CALNAME` from the head of a file (unfolded, TEXT-unescaped), if it names itself. */
function calendarName(head: Buffer): string | undefined {
  const text = Buffer.from(head.toString("latin1").replace(/\r?\n[ \t]/g, ""), "latin1").toString("utf8");
  const match = /^X-WR-CALNAME(?:;[^:\r\n]*)?:(.*)$/im.exec(text);
  const name = match?.[1]?.replace(/\\([\\;,nN])/g, (_m, c: string) => (c === "n" || c === "N" ? "\n" : c)).trim();
  return name === undefined || name === "" ? undefined : name;
}
