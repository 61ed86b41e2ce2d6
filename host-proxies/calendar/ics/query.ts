/** Free-text search and ordering of listed events, as Google's `events.list` does them. */
import { instantOf, parseDate, wallToInstant } from "../time.js";
import type { CalendarEvent, EventTime } from "../types.js";

/** Every whitespace-separated term of `query` appears (case-insensitively) in some field. */
export function matchesQuery(event: CalendarEvent, query: string | undefined): boolean {
  if (query === undefined) return true;
  const haystack = [event.summary, event.description ?? "", event.location ?? "", ...event.attendees].join("\n").toLowerCase();
  return query.toLowerCase().split(/\s+/).filter((t) => t !== "").every((term) => haystack.includes(term));
}

/** The instant an event time names (an all-day date: its midnight in `floatingZone`). */
export function instantOfEventTime(time: EventTime, floatingZone: string): number {
  if (time.date !== undefined) {
    const wall = parseDate(time.date);
    return wall === undefined ? Number.NaN : wallToInstant(wall, floatingZone);
  }
  return instantOf(time.dateTime ?? "") ?? Number.NaN;
}

/** Ascending start, then end, then id: a stable order for equal starts. */
export function byStart(floatingZone: string): (a: CalendarEvent, b: CalendarEvent) => number {
  return (a, b) =>
    instantOfEventTime(a.start, floatingZone) - instantOfEventTime(b.start, floatingZone) ||
    instantOfEventTime(a.end, floatingZone) - instantOfEventTime(b.end, floatingZone) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
