/**
 * The checks on what a guest asks for, once, before any backend sees it: time bounds that
 * parse, windows that are not huge, times of one kind, ends after starts, text of sane size.
 * Each check returns the canonical value the backend then acts on (see CheckedNewEvent).
 */
import { HostProxyError } from "../types.js";
import { checkCalendarId } from "./calendar-id.js";
import { canonicalZone, formatInstant, instantOf, parseDate, parseDateTime, wallAsUtc, wallToInstant } from "./time.js";
import type { CheckedNewEvent, EventQuery, EventTime, ListEventsRequest, NewEvent } from "./types.js";

export const CALENDAR_LIMITS = {
  /** Longest list window: a year and a day (leap years), as a guest asks for "this year". */
  maxWindowDays: 366,
  defaultMaxResults: 250,
  /** Google's own page cap for events.list. */
  maxResults: 2500,
  maxQueryLength: 500,
  maxSummaryLength: 1024,
  maxDescriptionLength: 8192,
  maxLocationLength: 1024,
  maxAttendees: 100,
  /** Earliest and latest years of an added event; before 1900 zones had local-mean-time offsets. */
  minYear: 1900,
  maxYear: 2500,
} as const;

const DAY_MS = 86_400_000;
// An RFC 5322 dot-atom local part without `%`, `?` and `#` (they would need escaping in the
// mailto: URI iCalendar stores, RFC 6068), and an ASCII domain (IDNs in their xn-- form).
// RFC 5321 §4.5.3.1.3 caps a path at 256 octets, so at most 254 for the address.
const EMAIL = /^[a-z0-9.!$&'*+/=^_`{|}~-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/;
// eslint-disable-next-line no-control-regex -- exactly the characters refused
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const LINE_BREAK = /[\n\r\t]/;

/** A `list-request`, checked: throws `invalid-input`. */
export function checkListRequest(request: ListEventsRequest, where = "calendar.listEvents"): EventQuery {
  const calendarId = checkCalendarId(request.calendarId, where);
  const min = boundInstant(request.timeMin, "timeMin", where);
  const max = boundInstant(request.timeMax, "timeMax", where);
  if (max <= min) throw invalid(where, `timeMax (${request.timeMax}) must be after timeMin (${request.timeMin})`);
  if (max - min > CALENDAR_LIMITS.maxWindowDays * DAY_MS) {
    throw invalid(where, `the window from timeMin to timeMax must be at most ${CALENDAR_LIMITS.maxWindowDays} days; ask for one year at a time`);
  }
  const query = request.query === undefined ? undefined : text(request.query, "query", { where, max: CALENDAR_LIMITS.maxQueryLength, lines: false }).trim();
  const maxResults = request.maxResults ?? CALENDAR_LIMITS.defaultMaxResults;
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > CALENDAR_LIMITS.maxResults) {
    throw invalid(where, `maxResults must be from 1 to ${CALENDAR_LIMITS.maxResults}, got ${String(maxResults)}`);
  }
  return { calendarId, timeMin: formatInstant(min), timeMax: formatInstant(max), query: query === "" ? undefined : query, maxResults };
}

/** A `new-event`, checked and canonical: throws `invalid-input`. */
export function checkNewEvent(event: NewEvent, where = "calendar.addEvent"): CheckedNewEvent {
  const calendarId = checkCalendarId(event.calendarId, where);
  const summary = text(event.summary, "summary", { where, max: CALENDAR_LIMITS.maxSummaryLength, lines: false });
  if (summary.trim() === "") throw invalid(where, "summary must not be empty");
  // One line-break form: iCalendar stores `\n` (RFC 5545 §3.3.11), Google returns `\n`.
  const description = event.description === undefined ? undefined : text(event.description, "description", { where, max: CALENDAR_LIMITS.maxDescriptionLength, lines: true }).replace(/\r\n?/g, "\n");
  const location = event.location === undefined ? undefined : text(event.location, "location", { where, max: CALENDAR_LIMITS.maxLocationLength, lines: false });
  const [start, end] = checkSpan(event.start, event.end, where);
  return { calendarId, summary, description, location, start, end, attendees: checkAttendees(event.attendees, where) };
}

interface CheckedTime {
  time: EventTime;
  /** Instant (timed) or UTC midnight of the date (all-day), for ordering. */
  at: number;
}

function checkSpan(startIn: EventTime, endIn: EventTime, where: string): [EventTime, EventTime] {
  const start = checkTime(startIn, "start", where);
  const end = checkTime(endIn, "end", where);
  if ((start.time.date === undefined) !== (end.time.date === undefined)) {
    throw invalid(where, "start and end must both be dates (an all-day event) or both be date-times");
  }
  if (end.at <= start.at) {
    const what = start.time.date !== undefined ? "end.date is exclusive: it must be after start.date" : "end must be after start";
    throw invalid(where, `${what} (start ${start.time.date ?? start.time.dateTime}, end ${end.time.date ?? end.time.dateTime})`);
  }
  return [start.time, end.time];
}

function checkTime(time: EventTime, field: string, where: string): CheckedTime {
  const { date, dateTime, timeZone } = time;
  if ((date === undefined) === (dateTime === undefined)) throw invalid(where, `${field} must have exactly one of date and dateTime`);
  if (date !== undefined) {
    if (timeZone !== undefined) throw invalid(where, `${field}.timeZone applies to a dateTime only, not to an all-day date`);
    const wall = parseDate(date);
    if (wall === undefined) throw invalid(where, `${field}.date must be a date like 2026-11-22, got ${JSON.stringify(date.slice(0, 40))}`);
    checkYear(wall.year, field, where);
    return { time: { date }, at: wallAsUtc(wall) };
  }
  const parsed = parseDateTime(dateTime ?? "");
  if (parsed === undefined) throw invalid(where, `${field}.dateTime must be RFC 3339 like 2026-01-15T09:00:00+01:00, got ${JSON.stringify((dateTime ?? "").slice(0, 40))}`);
  checkYear(parsed.wall.year, field, where);
  const zone = timeZone === undefined ? undefined : canonicalZone(timeZone);
  if (timeZone !== undefined && zone === undefined) throw invalid(where, `${field}.timeZone must be an IANA time zone like Europe/Zurich, got ${JSON.stringify(timeZone.slice(0, 64))}`);
  if (parsed.offsetSeconds === undefined && zone === undefined) {
    throw invalid(where, `${field}.dateTime has no offset: add one (Z, +01:00) or give ${field}.timeZone`);
  }
  const at = parsed.offsetSeconds === undefined ? wallToInstant(parsed.wall, zone as string) : wallAsUtc(parsed.wall) - parsed.offsetSeconds * 1000;
  return { time: { dateTime: formatInstant(at, zone), timeZone: zone }, at };
}

function checkYear(year: number, field: string, where: string): void {
  if (year < CALENDAR_LIMITS.minYear || year > CALENDAR_LIMITS.maxYear) {
    throw invalid(where, `${field} must be in the years ${CALENDAR_LIMITS.minYear} to ${CALENDAR_LIMITS.maxYear}`);
  }
}

function checkAttendees(attendees: readonly string[], where: string): string[] {
  if (attendees.length > CALENDAR_LIMITS.maxAttendees) throw invalid(where, `at most ${CALENDAR_LIMITS.maxAttendees} attendees, got ${attendees.length}`);
  const seen = new Set<string>();
  for (const [i, raw] of attendees.entries()) {
    const address = raw.trim().toLowerCase();
    if (address.length > 254 || !EMAIL.test(address)) {
      throw invalid(where, `attendees[${i}] must be an email address like ana@example.com, got ${JSON.stringify(raw.slice(0, 80))}`);
    }
    seen.add(address);
  }
  return [...seen];
}

function boundInstant(value: string, field: string, where: string): number {
  const at = instantOf(value);
  if (at === undefined) throw invalid(where, `${field} must be an RFC 3339 date-time with an offset, like 2026-01-01T00:00:00Z; got ${JSON.stringify(value.slice(0, 40))}`);
  return at;
}

function text(value: string, field: string, options: { where: string; max: number; lines: boolean }): string {
  if (value.length > options.max) throw invalid(options.where, `${field} must be at most ${options.max} characters, got ${value.length}`);
  if (!value.isWellFormed()) throw invalid(options.where, `${field} holds a lone surrogate (not Unicode text)`);
  if (CONTROL.test(value)) throw invalid(options.where, `${field} must not hold control characters`);
  if (!options.lines && LINE_BREAK.test(value)) throw invalid(options.where, `${field} must be one line (no line breaks or tabs)`);
  return value;
}

function invalid(where: string, message: string): HostProxyError {
  return HostProxyError.invalidInput(`${where}: ${message}`);
}
