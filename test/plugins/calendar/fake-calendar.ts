/**
 * An in-memory stand-in for `clawhive:host/calendar`, failing the way the guest sees real host
 * calls fail, and enforcing per-capability calendar grants the way the policy does.
 */
import { FakeComponentError } from "../files/fake-host.js";
import type { HostImports } from "../files/fake-host.js";

export interface FakeEventTime {
  date?: string;
  dateTime?: string;
  timeZone?: string;
}

export interface FakeEvent {
  id: string;
  calendarId: string;
  summary: string;
  description?: string;
  location?: string;
  start: FakeEventTime;
  end: FakeEventTime;
  allDay: boolean;
  recurringEventId?: string;
  attendees: string[];
  status?: string;
}

export interface FakeNewEvent {
  calendarId: string;
  summary: string;
  description?: string;
  location?: string;
  start: FakeEventTime;
  end: FakeEventTime;
  attendees: string[];
}

export type CalendarFunction = "listCalendars" | "listEvents" | "addEvent";

export interface FakeCalendarOptions {
  events?: FakeEvent[];
  /** Calendars `calendar.read` reaches (default primary and team). */
  read?: string[];
  /** Calendars `calendar.add` reaches (default primary). */
  add?: string[];
}

export class FakeCalendar {
  readonly calls: { fn: CalendarFunction; arg: unknown }[] = [];
  readonly added: FakeNewEvent[] = [];
  readonly #events: FakeEvent[];
  readonly #read: Set<string>;
  readonly #add: Set<string>;
  readonly #faults = new Map<CalendarFunction, (arg: unknown) => unknown>();

  constructor(options: FakeCalendarOptions = {}) {
    this.#events = options.events ?? [];
    this.#read = new Set(options.read ?? ["primary", "team"]);
    this.#add = new Set(options.add ?? ["primary"]);
  }

  fault(fn: CalendarFunction, impl: (arg: unknown) => unknown): void {
    this.#faults.set(fn, impl);
  }

  imports(): HostImports {
    const calendar = {
      listCalendars: () =>
        this.#call("listCalendars", undefined, () => [...this.#read].map((id) => ({ id, summary: `${id} calendar`, primary: id === "primary" }))),
      listEvents: (request: { calendarId: string; timeMin: string; timeMax: string; maxResults?: number }) =>
        this.#call("listEvents", request, () => {
          this.#check("calendar.read", this.#read, request.calendarId);
          return this.#events
            .filter((e) => e.calendarId === request.calendarId && instant(e.end) > Date.parse(request.timeMin) && instant(e.start) < Date.parse(request.timeMax))
            .slice(0, request.maxResults ?? 250)
            .map((e) => structuredClone(e));
        }),
      addEvent: (event: FakeNewEvent) =>
        this.#call("addEvent", event, () => {
          this.#check("calendar.add", this.#add, event.calendarId);
          this.added.push(structuredClone(event));
          return { ...structuredClone(event), id: `ev-${this.added.length}`, allDay: event.start.date !== undefined, status: "confirmed" };
        }),
    };
    return { "clawhive:host/calendar@0.1.1": calendar, "clawhive:host/types@0.1.1": {} };
  }

  #call(fn: CalendarFunction, arg: unknown, effect: () => unknown): unknown {
    this.calls.push({ fn, arg });
    const fault = this.#faults.get(fn);
    return fault === undefined ? effect() : fault(arg);
  }

  #check(capability: string, granted: Set<string>, calendar: string): void {
    if (granted.has(calendar)) return;
    throw new FakeComponentError({
      tag: "denied",
      val: { capability, reason: "calendar-not-allowed", message: `calendar ${JSON.stringify(calendar)} is not granted` },
    });
  }
}

function instant(t: FakeEventTime): number {
  return Date.parse(t.dateTime ?? `${t.date ?? ""}T00:00:00Z`);
}
