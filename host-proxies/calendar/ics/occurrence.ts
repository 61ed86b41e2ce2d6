/**
 * From ical.js values to the WIT `event`: instants, RFC 3339 strings in the event's own zone,
 * all-day dates, attendees as addresses, and Google-style ids for occurrences
 * (`<uid>_<recurrence-id>`: `_20121210` for a date, `_20121002T170000Z` for a date-time).
 * A zoned time is shown as its own VTIMEZONE reads it — the clock time the file holds, with the
 * offset the file gives it — never converted through the IANA zone of the same name, which may
 * define that name differently (zone-check.ts tells where).
 */
import ICAL from "ical.js";
import { formatDate, formatInstant, offsetAt, wallAsUtc, wallToInstant } from "../time.js";
import type { WallTime } from "../time.js";
import type { CalendarEvent, EventTime } from "../types.js";
import type { IcalComponent, ParsedCalendar } from "./read.js";
import type { ZoneDisagreements } from "./zone-check.js";

export type IcalTime = InstanceType<typeof ICAL.Time>;

/** How a listing places times: the parsed file's zones, and where it notes a VTIMEZONE that disagrees with IANA. */
export type ZoneContext = Pick<ParsedCalendar, "floatingZone" | "zoneLabels"> & {
  /** TZIDs the file defines itself: only these can disagree with the IANA zone. */
  definedTzids?: ReadonlySet<string>;
  zoneNotes?: ZoneDisagreements;
};

/** The instant of `time` (ms); a floating time or a date is placed in the calendar's zone. */
export function instantOfTime(time: IcalTime, ctx: ZoneContext): number {
  if (time.isDate || time.zone === ICAL.Timezone.localTimezone || time.zone == null) {
    return wallToInstant({ year: time.year, month: time.month, day: time.day, hour: time.isDate ? 0 : time.hour, minute: time.isDate ? 0 : time.minute, second: time.isDate ? 0 : time.second }, ctx.floatingZone);
  }
  return time.toUnixTime() * 1000;
}

/** The WIT `event-time` of `time`; `uid` names the event when its zone disagrees with IANA. */
export function eventTimeOf(time: IcalTime, ctx: ZoneContext, uid = ""): EventTime {
  if (time.isDate) return { date: formatDate(time) };
  const at = instantOfTime(time, ctx);
  if (time.zone === ICAL.Timezone.utcTimezone) return { dateTime: formatInstant(at) };
  if (time.zone === ICAL.Timezone.localTimezone || time.zone == null) return { dateTime: formatInstant(at, ctx.floatingZone), timeZone: ctx.floatingZone };
  const tzid = time.zone.tzid;
  const label = ctx.zoneLabels.get(tzid) ?? undefined;
  const wall = fileWallAt(at, time);
  const fileOffset = Math.round((wallAsUtc(wall) - at) / 1000);
  if (label !== undefined && ctx.definedTzids?.has(tzid) === true) {
    const zoneOffset = offsetAt(at, label);
    if (zoneOffset !== fileOffset) ctx.zoneNotes?.note(tzid, { zone: label, uid, wall, fileOffset, zoneOffset });
  }
  const dateTime = formatWithOffset(wall, fileOffset) ?? formatInstant(at);
  return label === undefined ? { dateTime } : { dateTime, timeZone: label };
}

/**
 * The clock time the file's own zone shows at `at`: the time as written, except a time the zone
 * skips (a spring-forward gap, RFC 5545 §3.3.5), which is shown as the clock shows that instant.
 */
function fileWallAt(at: number, time: IcalTime): WallTime {
  const utc = new ICAL.Time({ year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, isDate: false }, ICAL.Timezone.utcTimezone);
  utc.fromUnixTime(Math.floor(at / 1000));
  const local = utc.convertToZone(time.zone as InstanceType<typeof ICAL.Timezone>);
  return { year: local.year, month: local.month, day: local.day, hour: local.hour, minute: local.minute, second: local.second };
}

/** RFC 3339 with the offset; `undefined` for an offset with seconds (local mean time), which RFC 3339 cannot write. */
function formatWithOffset(wall: WallTime, offset: number): string | undefined {
  if (offset % 60 !== 0) return undefined;
  const abs = Math.abs(offset) / 60;
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${formatDate(wall)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${offset < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
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
  const uid = placement.recurringEventId ?? placement.id;
  return {
    id: placement.id,
    calendarId: placement.calendarId,
    summary: textOf(vevent, "summary") ?? "",
    description: textOf(vevent, "description"),
    location: textOf(vevent, "location"),
    start: eventTimeOf(placement.start, ctx, uid),
    end: eventTimeOf(end, ctx, uid),
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
