/**
 * Between the Calendar API v3 resources (`Event`, `EventDateTime`, `CalendarListEntry`; see
 * test/fixtures/calendar-api/calendar-v3-discovery.json) and the WIT records. Whatever Google
 * sends is checked for the fields used; a malformed item is an `io` error, never a guess.
 */
import { HostProxyError } from "../../types.js";
import type { CalendarEvent, CalendarInfo, CheckedNewEvent, EventTime } from "../types.js";

type Json = Record<string, unknown>;

/** A `CalendarListEntry` → `calendar-info` (the user's own name for it wins, as in Google's UI). */
export function calendarInfoOf(entry: unknown): CalendarInfo {
  const e = object(entry, "a calendar list entry");
  const id = string(e.id, "calendar list entry id");
  const summary = typeof e.summaryOverride === "string" ? e.summaryOverride : typeof e.summary === "string" ? e.summary : id;
  return { id, summary, primary: e.primary === true };
}

/** An `Event` (as `events.list` with `singleEvents=true` or `events.insert` returns it) → `event`. */
export function calendarEventOf(item: unknown, calendarId: string): CalendarEvent {
  const e = object(item, "an event");
  const start = eventTimeOf(e.start, "start");
  const attendees = Array.isArray(e.attendees) ? e.attendees : [];
  return {
    id: string(e.id, "event id"),
    calendarId,
    summary: typeof e.summary === "string" ? e.summary : "",
    description: optional(e.description),
    location: optional(e.location),
    start,
    end: eventTimeOf(e.end, "end"),
    allDay: start.date !== undefined,
    recurringEventId: optional(e.recurringEventId),
    attendees: attendees.flatMap((a: unknown) => (typeof a === "object" && a !== null && typeof (a as Json).email === "string" ? [(a as Json).email as string] : [])),
    status: optional(e.status),
  };
}

/** The `Event` body of `events.insert`. */
export function insertBodyOf(event: CheckedNewEvent): Json {
  const body: Json = { summary: event.summary, start: googleTime(event.start), end: googleTime(event.end) };
  if (event.description !== undefined) body.description = event.description;
  if (event.location !== undefined) body.location = event.location;
  if (event.attendees.length > 0) body.attendees = event.attendees.map((email) => ({ email }));
  return body;
}

function googleTime(time: EventTime): Json {
  if (time.date !== undefined) return { date: time.date };
  return time.timeZone === undefined ? { dateTime: time.dateTime } : { dateTime: time.dateTime, timeZone: time.timeZone };
}

function eventTimeOf(value: unknown, field: string): EventTime {
  const t = object(value, `an event ${field}`);
  if (typeof t.date === "string") return { date: t.date };
  const dateTime = string(t.dateTime, `event ${field}.dateTime`);
  const timeZone = optional(t.timeZone);
  return timeZone === undefined ? { dateTime } : { dateTime, timeZone };
}

function object(value: unknown, what: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw malformed(what);
  return value as Json;
}

function string(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") throw malformed(what);
  return value;
}

function optional(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function malformed(what: string): HostProxyError {
  return HostProxyError.io(`Google Calendar sent a malformed answer: expected ${what}`);
}
