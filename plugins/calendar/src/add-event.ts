import { addEvent as hostAddEvent } from "clawhive:host/calendar@0.1.1";
import type { EventTime } from "clawhive:host/calendar@0.1.1";
import { defineTool, fail } from "../../sdk/index.js";
import { eventOutput } from "./event.js";
import { formatDay, instantOf, parseTime } from "./time.js";
import type { TimeValue } from "./time.js";

export const MAX_ATTENDEES = 100;
const MAX_SUMMARY = 1024;
const MAX_LOCATION = 1024;
const MAX_DESCRIPTION = 8192;
// An IANA zone name (`Europe/Paris`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`) or `UTC`;
// whether it exists is for the host, which has the zone database.
const TIME_ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
// Enough to catch a name or a sentence given for an address; the host and the mail system decide.
const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

export const addEvent = defineTool({
  description:
    "Add an event to a calendar (a person approves it first). Timed: start and end as date-times, " +
    "with an offset (2026-11-22T09:00:00+01:00) or as local times with time_zone (2026-11-22T09:00, " +
    "Europe/Paris). All-day: start and end as dates; end is exclusive (a one-day event on 2026-11-22 " +
    "ends 2026-11-23, the default). Attendees are email addresses and will be invited.",
  inputSchema: {
    type: "object",
    properties: {
      calendar_id: { type: "string", description: "A calendar id from list_calendars, e.g. primary" },
      summary: { type: "string", description: "The event's title" },
      start: { type: "string", description: "2026-11-22T09:00:00+01:00, 2026-11-22T09:00 with time_zone, or 2026-11-22" },
      end: { type: "string", description: "Like start; required for a timed event" },
      time_zone: { type: "string", description: "IANA time zone of start and end, e.g. Europe/Paris" },
      location: { type: "string" },
      description: { type: "string" },
      attendees: { type: "array", items: { type: "string" }, description: "Email addresses to invite" },
    },
    required: ["calendar_id", "summary", "start"],
    additionalProperties: false,
  },
  capabilities: ["calendar.add"],
  risk: "guarded",
  run(input) {
    const calendarId = input.calendar_id;
    if (calendarId.trim() === "") throw fail.invalidInput("calendar_id: must not be empty");
    const summary = text("summary", input.summary, MAX_SUMMARY);
    if (summary === "") throw fail.invalidInput("summary: must not be empty");
    const timeZone = input.time_zone === undefined ? undefined : zone(input.time_zone);
    const { start, end } = times(input.start, input.end, timeZone);
    const location = input.location === undefined ? undefined : text("location", input.location, MAX_LOCATION);
    const description = input.description === undefined ? undefined : text("description", input.description, MAX_DESCRIPTION);
    const created = hostAddEvent({
      calendarId,
      summary,
      ...(description ? { description } : {}),
      ...(location ? { location } : {}),
      start,
      end,
      attendees: attendees(input.attendees ?? []),
    });
    return { created: eventOutput(created) };
  },
});

function times(startText: string, endText: string | undefined, timeZone: string | undefined): { start: EventTime; end: EventTime } {
  const start = parseTime("start", startText);
  if (start.kind === "date") {
    const end = endText === undefined ? { kind: "date" as const, day: start.day + 1, text: formatDay(start.day + 1) } : parseTime("end", endText);
    if (end.kind !== "date") throw fail.invalidInput("end: must be a date too when start is a date (an all-day event)");
    if (end.day <= start.day) throw fail.invalidInput(`end: ${end.text} must be after start ${start.text} (end is exclusive)`);
    return { start: { date: start.text }, end: { date: end.text } };
  }
  if (endText === undefined) throw fail.invalidInput("end: is required for a timed event");
  const end = parseTime("end", endText);
  if (end.kind !== "date-time") throw fail.invalidInput("end: must be a date-time too when start is a date-time");
  for (const [field, value] of [["start", start], ["end", end]] as const) {
    if (value.offsetMinutes === undefined && timeZone === undefined) {
      throw fail.invalidInput(`${field}: ${value.text} has no offset; add one (+01:00, Z) or give time_zone`);
    }
  }
  if (!ordered(start, end)) throw fail.invalidInput(`end: ${end.text} must be after start ${start.text}`);
  const withZone = (value: TimeValue): EventTime => ({ dateTime: value.text, ...(timeZone === undefined ? {} : { timeZone }) });
  return { start: withZone(start), end: withZone(end) };
}

/**
 * Two instants compare as instants; two local times (one time zone) compare as wall times; a
 * mix cannot be compared without the zone database, so the host decides.
 */
function ordered(start: TimeValue & { kind: "date-time" }, end: TimeValue & { kind: "date-time" }): boolean {
  const a = instantOf(start);
  const b = instantOf(end);
  if (a !== undefined && b !== undefined) return b > a;
  if (a === undefined && b === undefined) return end.local > start.local;
  return true;
}

function zone(value: string): string {
  const name = value.trim();
  if (name.length > 64 || !TIME_ZONE.test(name)) {
    throw fail.invalidInput(`time_zone: ${JSON.stringify(value)} is not an IANA time zone name like Europe/Paris`);
  }
  return name;
}

function text(field: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length > max) throw fail.invalidInput(`${field}: is ${trimmed.length} characters; the limit is ${max}`);
  return trimmed;
}

function attendees(list: unknown[]): string[] {
  if (list.length > MAX_ATTENDEES) throw fail.invalidInput(`attendees: ${list.length} addresses; the limit is ${MAX_ATTENDEES}`);
  const seen = new Set<string>();
  const out: string[] = [];
  list.forEach((entry, i) => {
    if (typeof entry !== "string") throw fail.invalidInput(`attendees[${i}]: must be a string`);
    const address = entry.trim();
    if (!EMAIL.test(address)) throw fail.invalidInput(`attendees[${i}]: ${JSON.stringify(entry)} is not an email address`);
    const key = address.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(address);
    }
  });
  return out;
}
