/**
 * The events of a parsed calendar that overlap a window, recurring ones expanded into their
 * occurrences. ical.js expands RRULE, RDATE and EXDATE (RFC 5545 §3.8.5) in the series' own
 * zone; overrides (RECURRENCE-ID, §3.8.4.4) are matched here by instant (or by date for
 * all-day series) rather than by ical.js's string keys, so an override written in another zone
 * than its series still finds its occurrence. An override moved into the window from a later
 * date is listed too. Overrides whose series is absent (Google's birthday export has three)
 * are listed as they stand, as occurrences of the series their UID names.
 * Not handled: RANGE=THISANDFUTURE (each such override changes only its own occurrence).
 */
import ICAL from "ical.js";
import { createHash } from "node:crypto";
import { HostProxyError } from "../../types.js";
import type { CalendarEvent } from "../types.js";
import { instantOfTime, recurrenceKey, toCalendarEvent } from "./occurrence.js";
import type { IcalTime, ZoneContext } from "./occurrence.js";
import type { IcalComponent, ParsedCalendar } from "./read.js";

/** Occurrences one series may run through before the window ends (ical.js cannot seek). */
export const MAX_OCCURRENCES_PER_SERIES = 100_000;
/** Occurrences a whole file may run through in one listing: many capped series are still too many. */
export const MAX_OCCURRENCES_PER_FILE = 1_000_000;

export interface Window {
  /** ms, exclusive bound on an event's end. */
  min: number;
  /** ms, exclusive bound on an event's start. */
  max: number;
}

interface Series {
  uid: string;
  master: IcalComponent | undefined;
  overrides: IcalComponent[];
}

/** Every event overlapping `window`, in no particular order. */
export function eventsIn(calendar: ParsedCalendar, o: { window: Window; calendarId: string; maxOccurrences?: number }): CalendarEvent[] {
  const { window } = o;
  const out: CalendarEvent[] = [];
  const ctx = { calendar, calendarId: o.calendarId, maxOccurrences: o.maxOccurrences ?? MAX_OCCURRENCES_PER_SERIES, walked: { count: 0 } };
  for (const series of seriesOf(calendar.root)) {
    try {
      out.push(...seriesIn(series, window, ctx));
    } catch (error) {
      if (error instanceof HostProxyError) throw error;
      // One broken event (a bad RRULE, an unreadable date) must not hide the rest of the calendar.
      calendar.notes.push(`skipped event ${JSON.stringify(series.uid)}: ${error instanceof Error ? error.message.slice(0, 160) : String(error)}`);
    }
  }
  return out;
}

function seriesIn(series: Series, window: Window, ctx: ListContext): CalendarEvent[] {
  if (series.master !== undefined && !series.master.hasProperty("dtstart")) throw new Error("it has no DTSTART");
  const master = series.master === undefined ? undefined : new ICAL.Event(series.master, { exceptions: [] });
  if (master?.isRecurring()) return expandSeries(series, master, window, ctx);
  const out: CalendarEvent[] = [];
  if (series.master !== undefined) place(series.master, { ...ctx, window, out, id: series.uid, recurringEventId: undefined });
  // Overrides of a series that does not recur (or is missing) stand on their own.
  for (const override of series.overrides) place(override, { ...ctx, window, out, id: series.uid, recurringEventId: series.uid });
  return out;
}

interface ListContext {
  calendar: ParsedCalendar;
  calendarId: string;
  maxOccurrences: number;
  /** Occurrences walked so far in this listing, across series. */
  walked: { count: number };
}

type IcalEvent = InstanceType<typeof ICAL.Event>;

function expandSeries(series: Series, master: IcalEvent, window: Window, ctx: ListContext): CalendarEvent[] {
  const overrides = new Map(series.overrides.map((o) => [keyOf(new ICAL.Event(o).recurrenceId, ctx.calendar), o]));
  const used = new Set<string>();
  const out: CalendarEvent[] = [];
  const iterator = master.iterator();
  // Occurrences that end this long before the window cannot reach it (DST shifts included).
  const reach = master.duration.toSeconds() * 1000 + 2 * 86_400_000;
  for (let count = 0; ; count++) {
    const next = iterator.next();
    const at = next === undefined || next === null ? Number.POSITIVE_INFINITY : instantOfTime(next, ctx.calendar);
    if (next === undefined || next === null || at >= window.max) break;
    if (count >= ctx.maxOccurrences) {
      throw HostProxyError.io(`calendar ${ctx.calendarId}: event ${JSON.stringify(series.uid)} recurs more than ${ctx.maxOccurrences} times before the window ends; it cannot be listed`);
    }
    if (++ctx.walked.count > MAX_OCCURRENCES_PER_FILE) {
      throw HostProxyError.io(`calendar ${ctx.calendarId}: its events recur more than ${MAX_OCCURRENCES_PER_FILE} times in all before the window ends; list a narrower window or split the file`);
    }
    const key = next.isDate ? `D${recurrenceKey(next, ctx.calendar)}` : `T${at}`;
    const override = overrides.get(key);
    if (override === undefined && at + reach < window.min) continue;
    if (override !== undefined) used.add(key);
    const id = `${series.uid}_${recurrenceKey(next, ctx.calendar)}`;
    if (override !== undefined) {
      place(override, { ...ctx, window, out, id, recurringEventId: series.uid });
      continue;
    }
    const details = master.getOccurrenceDetails(next);
    pushIfOverlapping({ ...ctx, window, out }, { vevent: series.master as IcalComponent, id, start: details.startDate, end: details.endDate, recurringEventId: series.uid });
  }
  // Overrides the iteration never reached: moved here from after the window, or not on the
  // rule. One for an EXDATE'd occurrence stays deleted (the EXDATE wins, RFC 5545 §3.8.5.1).
  const excluded = new Set((series.master as IcalComponent).getAllProperties("exdate").flatMap((p) => p.getValues() as IcalTime[]).map((t) => keyOf(t, ctx.calendar)));
  for (const [key, override] of overrides) {
    if (used.has(key) || excluded.has(key)) continue;
    const id = `${series.uid}_${recurrenceKey(new ICAL.Event(override).recurrenceId, ctx.calendar)}`;
    place(override, { ...ctx, window, out, id, recurringEventId: series.uid });
  }
  return out;
}

/** Where a listing collects what overlaps its window. */
type Collector = ListContext & { window: Window; out: CalendarEvent[] };

/**
 * Lists one VEVENT at its own DTSTART/DTEND when it overlaps the window. An orphan override
 * (`id` is its series id) gets the occurrence id its RECURRENCE-ID names.
 */
function place(vevent: IcalComponent, o: Collector & { id: string; recurringEventId: string | undefined }): void {
  const event = new ICAL.Event(vevent, { exceptions: [] });
  if (event.startDate === null || event.startDate === undefined) return;
  const rid = event.isRecurrenceException() ? event.recurrenceId : undefined;
  const id = rid !== undefined && o.id === o.recurringEventId ? `${o.id}_${recurrenceKey(rid, o.calendar)}` : o.id;
  pushIfOverlapping(o, { vevent, id, start: event.startDate, end: event.endDate, recurringEventId: o.recurringEventId });
}

function pushIfOverlapping(o: Collector, p: { vevent: IcalComponent; id: string; start: IcalTime; end: IcalTime; recurringEventId: string | undefined }): void {
  const zones: ZoneContext = o.calendar;
  const start = instantOfTime(p.start, zones);
  const end = Math.max(start, instantOfTime(p.end, zones));
  // Google's rule: ends after timeMin and starts before timeMax; an instant event at timeMin counts.
  if (!(start < o.window.max && (end > o.window.min || (end === start && start >= o.window.min)))) return;
  o.out.push(toCalendarEvent(p.vevent, { zones, calendarId: o.calendarId, id: p.id, start: p.start, end: p.end, recurringEventId: p.recurringEventId }));
}

function keyOf(time: IcalTime, zones: ZoneContext): string {
  return time.isDate ? `D${recurrenceKey(time, zones)}` : `T${instantOfTime(time, zones)}`;
}

/** VEVENTs grouped by UID: the series master (no RECURRENCE-ID) and its overrides. */
function seriesOf(root: IcalComponent): Series[] {
  const byUid = new Map<string, Series>();
  for (const vevent of root.getAllSubcomponents("vevent")) {
    const uid = uidOf(vevent);
    const series = byUid.get(uid) ?? { uid, master: undefined, overrides: [] };
    byUid.set(uid, series);
    if (vevent.hasProperty("recurrence-id")) series.overrides.push(vevent);
    // A second master with the same UID is a broken export; the first one wins.
    else if (series.master === undefined) series.master = vevent;
  }
  return [...byUid.values()];
}

/** The UID, or (RFC 5545 makes it required, but some exports drop it) a digest of the event. */
function uidOf(vevent: IcalComponent): string {
  const uid = vevent.getFirstPropertyValue("uid");
  if (typeof uid === "string" && uid.trim() !== "") return uid.trim();
  return `nouid-${createHash("sha256").update(vevent.toString()).digest("hex").slice(0, 24)}`;
}
