/**
 * From ical.js values to the WIT `event`: instants, RFC 3339 strings in the event's own zone,
 * all-day dates, attendees as addresses, and Google-style ids for occurrences
 * (`<uid>_<recurrence-id>`: `_20121210` for a date, `_20121002T170000Z` for a date-time).
 */
import ICAL from "ical.js";
import { formatDate, formatInstant, wallToInstant } from "../time.js";
import type { CalendarEvent, EventTime } from "../types.js";
import type { IcalComponent, ParsedCalendar } from "./read.js";

export type IcalTime = InstanceType<typeof ICAL.Time>;

/** How a listing places times: the parsed file's zones. */
export type ZoneContext = Pick<ParsedCalendar, "floatingZone" | "zoneLabels">;

/** The instant of `time` (ms); a floating time or a date is placed in the calendar's zone. */
export function instantOfTime(time: IcalTime, ctx: ZoneContext): number {
  if (time.isDate || time.zone === ICAL.Timezone.localTimezone || time.zone == null) {
    return wallToInstant({ year: time.year, month: time.month, day: time.day, hour: time.isDate ? 0 : time.hour, minute: time.isDate ? 0 : time.minute, second: time.isDate ? 0 : time.second }, ctx.floatingZone);
  }
  return time.toUnixTime() * 1000;
}

/** The WIT `event-time` of `time`. */
export function eventTimeOf(time: IcalTime, ctx: ZoneContext): EventTime {
  if (time.isDate) return { date: formatDate(time) };
  const at = instantOfTime(time, ctx);
  const zone = zoneLabelOf(time, ctx);
  return zone === undefined ? { dateTime: formatInstant(at) } : { dateTime: formatInstant(at, zone), timeZone: zone };
}

function zoneLabelOf(time: IcalTime, ctx: ZoneContext): string | undefined {
  if (time.zone === ICAL.Timezone.utcTimezone) return undefined;
  if (time.zone === ICAL.Timezone.localTimezone || time.zone == null) return ctx.floatingZone;
  return ctx.zoneLabels.get(time.zone.tzid) ?? undefined;
}

/** The id part of a recurrence id, as Google writes instance ids. */
export function recurrenceKey(rid: IcalTime, ctx: ZoneContext): string {
  if (rid.isDate) return formatDate(rid).replaceAll("-", "");
  return new Date(instantOfTime(rid, ctx)).toISOString().replace(/[-:]|\.\d{3}/g, "");
}

export interface Placement {
  zones: ZoneContext;
  calendarId: string;
  id: string;
  start: IcalTime;
  end: IcalTime;
  recurringEventId?: string | undefined;
}

/** The WIT `event` for `vevent` placed at `start`–`end`. */
export function toCalendarEvent(vevent: IcalComponent, placement: Placement): CalendarEvent {
  const ctx = placement.zones;
  const end = placement.end.compare(placement.start) < 0 ? placement.start : placement.end;
  return {
    id: placement.id,
    calendarId: placement.calendarId,
    summary: textOf(vevent, "summary") ?? "",
    description: textOf(vevent, "description"),
    location: textOf(vevent, "location"),
    start: eventTimeOf(placement.start, ctx),
    end: eventTimeOf(end, ctx),
    allDay: placement.start.isDate,
    recurringEventId: placement.recurringEventId,
    attendees: attendeesOf(vevent),
    status: textOf(vevent, "status")?.toLowerCase(),
  };
}

/** A text property, `undefined` when absent or empty (as Google omits empty fields). */
function textOf(vevent: IcalComponent, name: string): string | undefined {
  const value = vevent.getFirstPropertyValue(name);
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** `mailto:` values (or the `EMAIL` parameter), each once, in file order. */
function attendeesOf(vevent: IcalComponent): string[] {
  const seen = new Set<string>();
  for (const prop of vevent.getAllProperties("attendee")) {
    const value = prop.getFirstValue();
    const email = prop.getFirstParameter("email");
    let address = typeof value === "string" && /^mailto:/i.test(value.trim()) ? value.trim().slice(7) : typeof email === "string" ? email : undefined;
    if (address === undefined) continue;
    try {
      address = decodeURIComponent(address);
    } catch {
      // Not percent-encoded after all: keep it as written.
    }
    if (address.trim() !== "") seen.add(address.trim());
  }
  return [...seen];
}
