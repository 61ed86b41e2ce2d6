/**
 * The shapes of `clawhive:host/calendar` (wit/host/calendar.wit) as jco lifts them — records
 * are camelCase objects, `option<T>` is `T | undefined`, `u32` is a number — and the
 * `CalendarBackend` every calendar store implements (test/host-proxies/calendar/conformance.ts
 * is the one suite each of them passes).
 */
import type { CalendarWarning } from "./ics/warnings.js";
export type { CalendarWarning } from "./ics/warnings.js";

/** `event-time`: `date` for an all-day event, else `dateTime` (RFC 3339) and maybe `timeZone`. */
export interface EventTime {
  /** `2026-11-22`; for an end, exclusive (the day after the last day). */
  date?: string | undefined;
  /** RFC 3339 with an offset, e.g. `2026-01-15T09:00:00+01:00`. */
  dateTime?: string | undefined;
  /** An IANA name, e.g. `Europe/Zurich`. */
  timeZone?: string | undefined;
}

/** `event`. */
export interface CalendarEvent {
  id: string;
  calendarId: string;
  summary: string;
  description?: string | undefined;
  location?: string | undefined;
  start: EventTime;
  end: EventTime;
  allDay: boolean;
  /** Set on an occurrence of a recurring event: the id of the series. */
  recurringEventId?: string | undefined;
  /** Email addresses. */
  attendees: string[];
  /** `confirmed`, `tentative` or `cancelled` (lowercase, as Google spells them). */
  status?: string | undefined;
}

/** `calendar-info`. */
export interface CalendarInfo {
  id: string;
  summary: string;
  primary: boolean;
}

/** `list-request`. */
export interface ListEventsRequest {
  calendarId: string;
  timeMin: string;
  timeMax: string;
  query?: string | undefined;
  maxResults?: number | undefined;
}

/** `new-event`. */
export interface NewEvent {
  calendarId: string;
  summary: string;
  description?: string | undefined;
  location?: string | undefined;
  start: EventTime;
  end: EventTime;
  attendees: string[];
}

/**
 * A list request after the proxy checked it: a valid, granted calendar id; instants with an
 * offset (normalised to UTC); `maxResults` set. Backends receive only this.
 */
export interface EventQuery {
  calendarId: string;
  /** RFC 3339 in UTC, e.g. `2026-01-01T00:00:00Z`. */
  timeMin: string;
  timeMax: string;
  /** Whitespace-separated terms, each of which must appear in the event (case-insensitive). */
  query: string | undefined;
  maxResults: number;
}

/**
 * A new event after the proxy checked it: a valid, granted calendar id; both times of one kind;
 * every `dateTime` with an offset (derived from `timeZone` when the guest gave none) and every
 * `timeZone` canonical; end after start; attendees lowercased addresses, each once.
 */
export type CheckedNewEvent = NewEvent;

/** What a listing tells its caller besides the events. */
export interface ListOptions {
  /** Each event, property or recurrence part the backend could not read (or read by guessing). */
  onWarning?: ((warning: CalendarWarning) => void) | undefined;
}

/**
 * Where events live. Implementations: `IcsFileBackend` (local .ics files, the embedded default)
 * and `GoogleCalendarBackend` (Calendar API v3). All methods throw `HostProxyError` only.
 *
 * Window semantics (both, as Google's `events.list`): an event is listed when it ends after
 * `timeMin` and starts before `timeMax`; recurring events come as their occurrences, ordered by
 * start time.
 */
export interface CalendarBackend {
  listCalendars(): Promise<CalendarInfo[]>;
  listEvents(query: EventQuery, options?: ListOptions): Promise<CalendarEvent[]>;
  addEvent(event: CheckedNewEvent): Promise<CalendarEvent>;
}
