/**
 * The calendar host proxy of one instance: its grant (calendar id patterns) is fixed at
 * creation. Every call checks the calendar id (syntax first, so a path trick is `invalid-input`
 * however the grant reads), then the grant (so an ungranted calendar is refused before anything
 * about the request is looked at), then the rest of the input, and only then asks the backend.
 * The policy gate decides the same id one layer earlier; this re-check means a gate bug cannot
 * widen what a plugin reaches.
 */
import { InvalidInputError } from "../../runtime/errors.js";
import { HostProxyError } from "../types.js";
import { calendarGranted, calendarIdProblem, checkCalendarId } from "./calendar-id.js";
import { CALENDAR_CAPABILITIES, CALENDAR_DENIAL_REASONS, calendarDenied } from "./reasons.js";
import type { CalendarCapability } from "./reasons.js";
import type { CalendarBackend, CalendarEvent, CalendarInfo, CalendarWarning, ListEventsRequest, NewEvent } from "./types.js";
import { checkListRequest, checkNewEvent } from "./validate.js";

export interface CalendarProxyOptions {
  /** Granted calendar ids or globs (`*` is any run of characters): `primary`, `team-*@example.com`. */
  calendars: readonly string[];
  /** A further decision per call (e.g. the task narrowed the grant); `false` refuses. */
  allowCalendar?: (id: string, capability: CalendarCapability) => boolean;
  /** Told what a listing could not read (or read by guessing), so the caller can pass it on. */
  onWarning?: ((warning: CalendarWarning & { calendarId: string }) => void) | undefined;
}

/** `clawhive:host/calendar` for one instance. Methods throw `HostProxyError` only. */
export interface CalendarProxy {
  /** The granted calendars the backend has. */
  listCalendars(): Promise<CalendarInfo[]>;
  listEvents(request: ListEventsRequest): Promise<CalendarEvent[]>;
  addEvent(event: NewEvent): Promise<CalendarEvent>;
}

/** Throws `InvalidInputError` on a bad grant. */
export function createCalendarProxy(backend: CalendarBackend, options: CalendarProxyOptions): CalendarProxy {
  if (!Array.isArray(options.calendars)) throw new InvalidInputError("createCalendarProxy: calendars must be a list of calendar ids or globs", { field: "calendars" });
  for (const [i, pattern] of options.calendars.entries()) {
    if (typeof pattern !== "string" || pattern === "" || pattern.length > 255) {
      throw new InvalidInputError(`createCalendarProxy: calendars[${i}] must be a calendar id or glob of 1 to 255 characters`, { field: `calendars[${i}]` });
    }
  }
  return new GrantedCalendarProxy(backend, Object.freeze([...options.calendars]), options.allowCalendar, options.onWarning);
}

class GrantedCalendarProxy implements CalendarProxy {
  readonly #backend: CalendarBackend;
  readonly #patterns: readonly string[];
  readonly #allow: CalendarProxyOptions["allowCalendar"];
  readonly #onWarning: CalendarProxyOptions["onWarning"];

  constructor(backend: CalendarBackend, patterns: readonly string[], allow: CalendarProxyOptions["allowCalendar"], onWarning: CalendarProxyOptions["onWarning"]) {
    this.#backend = backend;
    this.#patterns = patterns;
    this.#allow = allow;
    this.#onWarning = onWarning;
  }

  async listCalendars(): Promise<CalendarInfo[]> {
    const all = await this.#backend.listCalendars();
    return all.filter((c) => calendarIdProblem(c.id) === undefined && this.#granted(c.id, CALENDAR_CAPABILITIES.read));
  }

  async listEvents(request: ListEventsRequest): Promise<CalendarEvent[]> {
    this.#check(request.calendarId, CALENDAR_CAPABILITIES.read, "calendar.listEvents");
    const query = checkListRequest(request);
    const onWarning = this.#onWarning;
    const events = await this.#backend.listEvents(query, onWarning === undefined ? {} : { onWarning: (w) => onWarning({ ...w, calendarId: query.calendarId }) });
    // The backend answers for one calendar; say so even if it did not.
    return events.slice(0, query.maxResults).map((e) => ({ ...e, calendarId: query.calendarId }));
  }

  async addEvent(event: NewEvent): Promise<CalendarEvent> {
    this.#check(event.calendarId, CALENDAR_CAPABILITIES.add, "calendar.addEvent");
    const checked = checkNewEvent(event);
    return { ...(await this.#backend.addEvent(checked)), calendarId: checked.calendarId };
  }

  #check(id: string, capability: CalendarCapability, where: string): void {
    checkCalendarId(id, where);
    if (!this.#granted(id, capability)) {
      throw calendarDenied(capability, CALENDAR_DENIAL_REASONS.notGranted, `${where}: calendar ${JSON.stringify(id)} is not granted (${capability})`);
    }
  }

  #granted(id: string, capability: CalendarCapability): boolean {
    if (!calendarGranted(this.#patterns, id)) return false;
    if (this.#allow === undefined) return true;
    try {
      return this.#allow(id, capability) === true;
    } catch (error) {
      // Fail closed: a decision that throws lets nothing through.
      throw HostProxyError.io(`calendar: the grant check for ${JSON.stringify(id)} failed`, error);
    }
  }
}
