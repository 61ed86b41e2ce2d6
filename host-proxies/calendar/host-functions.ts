/**
 * The bridge's view of the calendar proxy: one function per `clawhive:host/calendar` import,
 * keyed by the camelCase name jco gives it, taking the raw argument list a guest sent. Records
 * are checked here, field by field, because they come from guest memory, not typed code; the
 * proxy then checks what they mean.
 */
import { HostProxyError } from "../types.js";
import type { CalendarProxy } from "./proxy.js";
import type { EventTime, ListEventsRequest, NewEvent } from "./types.js";

/** One host function as the bridge calls it. Rejects with `HostProxyError` only. */
type HostFunction = (args: unknown[]) => Promise<unknown>;

export const CALENDAR_HOST_FUNCTION_NAMES = ["listCalendars", "listEvents", "addEvent"] as const;
export type CalendarHostFunctionName = (typeof CALENDAR_HOST_FUNCTION_NAMES)[number];

const U32_MAX = 0xffff_ffff;

/** A null-prototype, frozen table (see fsHostFunctions). */
export function calendarHostFunctions(proxy: CalendarProxy): Record<string, HostFunction> {
  const table: Record<CalendarHostFunctionName, HostFunction> = {
    listCalendars: async (args) => {
      arity("listCalendars", args, 0);
      return proxy.listCalendars();
    },
    listEvents: async (args) => {
      arity("listEvents", args, 1);
      return proxy.listEvents(parseListRequest(args[0]));
    },
    addEvent: async (args) => {
      arity("addEvent", args, 1);
      return proxy.addEvent(parseNewEvent(args[0]));
    },
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

/** A guest's `list-request` as jco lifts it; throws `invalid-input`. */
export function parseListRequest(value: unknown): ListEventsRequest {
  const at = (field: string) => `calendar.listEvents: ${field}`;
  const r = record(value, at("request"), ["calendarId", "timeMin", "timeMax", "query", "maxResults"]);
  const maxResults = r.maxResults;
  if (maxResults !== undefined && !(typeof maxResults === "number" && Number.isInteger(maxResults) && maxResults >= 0 && maxResults <= U32_MAX)) {
    throw bad(at("maxResults"), "a u32", maxResults);
  }
  return {
    calendarId: str(r.calendarId, at("calendarId")),
    timeMin: str(r.timeMin, at("timeMin")),
    timeMax: str(r.timeMax, at("timeMax")),
    query: optionalStr(r.query, at("query")),
    maxResults,
  };
}

/** A guest's `new-event` as jco lifts it; throws `invalid-input`. */
export function parseNewEvent(value: unknown): NewEvent {
  const at = (field: string) => `calendar.addEvent: ${field}`;
  const r = record(value, at("event"), ["calendarId", "summary", "description", "location", "start", "end", "attendees"]);
  if (!Array.isArray(r.attendees)) throw bad(at("attendees"), "a list of strings", r.attendees);
  return {
    calendarId: str(r.calendarId, at("calendarId")),
    summary: str(r.summary, at("summary")),
    description: optionalStr(r.description, at("description")),
    location: optionalStr(r.location, at("location")),
    start: eventTime(r.start, at("start")),
    end: eventTime(r.end, at("end")),
    attendees: r.attendees.map((a: unknown, i) => str(a, at(`attendees[${i}]`))),
  };
}

/** `at` names the field in messages: `calendar.addEvent: start`. */
function eventTime(value: unknown, at: string): EventTime {
  const r = record(value, at, ["date", "dateTime", "timeZone"]);
  return { date: optionalStr(r.date, `${at}.date`), dateTime: optionalStr(r.dateTime, `${at}.dateTime`), timeZone: optionalStr(r.timeZone, `${at}.timeZone`) };
}

function record(value: unknown, at: string, fields: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad(at, "a record", value);
  const extra = Object.keys(value).find((k) => !fields.includes(k));
  if (extra !== undefined) throw HostProxyError.invalidInput(`${at} has no field ${JSON.stringify(extra.slice(0, 64))}`);
  return value as Record<string, unknown>;
}

function str(value: unknown, at: string): string {
  if (typeof value !== "string") throw bad(at, "a string", value);
  return value;
}

function optionalStr(value: unknown, at: string): string | undefined {
  return value === undefined ? undefined : str(value, at);
}

function arity(fn: string, args: unknown, count: number): asserts args is unknown[] {
  if (!Array.isArray(args) || args.length !== count) {
    throw HostProxyError.invalidInput(`calendar.${fn}: expected ${count} argument(s), got ${Array.isArray(args) ? args.length : typeof args}`);
  }
}

function bad(at: string, expected: string, got: unknown): HostProxyError {
  return HostProxyError.invalidInput(`${at} must be ${expected}, got ${describe(got)}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}
