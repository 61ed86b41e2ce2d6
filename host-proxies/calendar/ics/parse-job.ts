/**
 * The calendar's work that runs in a parse worker (host-proxies/_parse): ical.js parsing and
 * recurrence expansion cannot be bounded from outside (an absurd DURATION or an endless
 * SECONDLY rule loops inside the library), so they run where a deadline can stop them.
 */
import type { CalendarEvent } from "../types.js";
import { eventsIn } from "./expand.js";
import type { Window } from "./expand.js";
import { parseCalendar } from "./read.js";
import type { CalendarWarning } from "./warnings.js";
import type { ParseOptions } from "./read.js";

export interface CalendarJobInput {
  bytes: Uint8Array;
  parse: ParseOptions;
  /** Events overlapping this window are listed; none when `expand` is false. */
  window: Window;
  calendarId: string;
  expand: boolean;
  maxOccurrences?: number | undefined;
}

export interface CalendarJobOutput {
  events: CalendarEvent[];
  /** What could not be read, or was read by guessing; never empty when something was skipped. */
  warnings: CalendarWarning[];
  floatingZone: string;
  definedTzids: string[];
}

export function calendarEventsJob(input: CalendarJobInput): CalendarJobOutput {
  const calendar = parseCalendar(input.bytes, input.parse);
  const events = input.expand ? eventsIn(calendar, { window: input.window, calendarId: input.calendarId, maxOccurrences: input.maxOccurrences }) : [];
  return { events, warnings: calendar.warnings, floatingZone: calendar.floatingZone, definedTzids: [...calendar.definedTzids] };
}
