/**
 * The events of a parsed calendar that overlap a window, recurring ones expanded into their
 * occurrences. ical.js expands RRULE, RDATE and EXDATE (RFC 5545 §3.8.5) in the series' own
 * zone; overrides (RECURRENCE-ID, §3.8.4.4) are matched here by instant (or by date for
 * all-day series) rather than by ical.js's string keys, so an override written in another zone
 * than its series still finds its occurrence. An override moved into the window from a later
 * date is listed too. Overrides whose series is absent (Google's birthday export has three)
 * are listed as they stand, as occurrences of the series their UID names.
 * Several VEVENTs with one UID and no RECURRENCE-ID (a re-sent update, a duplicate export) are
 * one event: the highest SEQUENCE wins, then the latest DTSTAMP, then the last in the file, as
 * RFC 5546 §2.1.5 orders versions; the same holds for two overrides of one occurrence.
 * An all-day series whose override names its occurrence by a midnight DATE-TIME (Outlook) is
 * matched by date, so a moved all-day occurrence is listed once, at its new date.
 * Not handled, and said so in a warning: RANGE=THISANDFUTURE (each such override changes only
 * its own occurrence).
 */
import ICAL from "ical.js";
import { HostProxyError } from "../../types.js";
import type { CalendarEvent } from "../types.js";
import { formatDate } from "../time.js";
import { instantOfTime, recurrenceKey, toCalendarEvent } from "./occurrence.js";
import type { IcalTime, ZoneContext } from "./occurrence.js";
import type { IcalComponent, ParsedCalendar } from "./read.js";
import { EventKeys } from "./event-keys.js";
import { expandMonthDays } from "./month-days.js";
import { diagnose, reasonOf } from "./unreadable.js";
import type { CalendarWarning } from "./warnings.js";

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
  for (const series of seriesOf(calendar.root, calendar.warnings)) {
    try {
      out.push(...seriesIn(series, window, ctx));
    } catch (error) {
      if (error instanceof HostProxyError) throw error;
      // One broken event (a bad RRULE, an unreadable date) must not hide the rest of the calendar.
      const component = series.master ?? series.overrides[0];
      calendar.warnings.push({ uid: series.uid, reason: `skipped, not listed: ${component === undefined ? reasonOf(error, "unreadable") : diagnose(component, error)}` });
    }
  }
  calendar.warnings.push(...calendar.zoneNotes.warnings());
  return out;
}

function seriesIn(series: Series, window: Window, ctx: ListContext): CalendarEvent[] {
  if (series.master !== undefined && !series.master.hasProperty("dtstart")) throw new Error("it has no DTSTART");
  for (const c of [series.master, ...series.overrides]) {
    if (c !== undefined && c.hasProperty("dtstart") && !(c.getFirstPropertyValue("dtstart") instanceof ICAL.Time)) throw new Error("its DTSTART is not a DATE or DATE-TIME (RFC 5545 §3.8.2.4)");
  }
  const periods = series.master === undefined ? new Map<number, IcalTime>() : periodRdates(series.master, ctx.calendar);
  let rolledOver: (time: IcalTime) => boolean = () => false;
  if (series.master !== undefined) {
    untilInSeriesZone(series.master);
    const instantOf = (t: IcalTime) => instantOfTime(t, ctx.calendar);
    rolledOver = expandMonthDays(series.master, { until: window.max, maxOccurrences: ctx.maxOccurrences, instantOf, uid: series.uid, warnings: ctx.calendar.warnings });
    startAmongRdates(series.master);
    countWithRdates(series.master, series.uid, ctx.calendar.warnings);
  }
  const master = series.master === undefined ? undefined : new ICAL.Event(series.master, { exceptions: [] });
  if (master?.isRecurring()) return expandSeries(series, master, window, { ...ctx, periods, rolledOver });
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
  /** Ends of the series' `RDATE;VALUE=PERIOD` occurrences, by start instant. */
  periods?: Map<number, IcalTime>;
  /** Occurrences ical.js rolled over from a day their month lacks (month-days.ts). */
  rolledOver?: (time: IcalTime) => boolean;
}

type IcalEvent = InstanceType<typeof ICAL.Event>;

function expandSeries(series: Series, master: IcalEvent, window: Window, ctx: ListContext): CalendarEvent[] {
  const allDay = master.startDate.isDate;
  const overrides = new Map(series.overrides.map((o) => [overrideKey(new ICAL.Event(o).recurrenceId, allDay, ctx.calendar), o]));
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
    if (ctx.rolledOver?.(next) === true) continue;
    const dateKey = `D${formatDate(next).replaceAll("-", "")}`;
    const key = next.isDate ? dateKey : overrides.has(`T${at}`) ? `T${at}` : dateKey;
    const override = overrides.get(key);
    if (override === undefined && at + reach < window.min) continue;
    if (override !== undefined) used.add(key);
    const id = `${series.uid}_${recurrenceKey(next, ctx.calendar)}`;
    if (override !== undefined) {
      place(override, { ...ctx, window, out, id, recurringEventId: series.uid });
      continue;
    }
    const details = master.getOccurrenceDetails(next);
    const end = ctx.periods?.get(at) ?? details.endDate;
    pushIfOverlapping({ ...ctx, window, out }, { vevent: series.master as IcalComponent, id, start: details.startDate, end, recurringEventId: series.uid });
  }
  // Overrides the iteration never reached: moved here from after the window, or not on the
  // rule. One for an EXDATE'd occurrence stays deleted (the EXDATE wins, RFC 5545 §3.8.5.1).
  const excluded = new Set((series.master as IcalComponent).getAllProperties("exdate").flatMap((p) => p.getValues() as IcalTime[]).map((t) => overrideKey(t, allDay, ctx.calendar)));
  for (const [key, override] of overrides) {
    if (used.has(key) || excluded.has(key)) continue;
    const id = `${series.uid}_${recurrenceKey(new ICAL.Event(override).recurrenceId, ctx.calendar)}`;
    place(override, { ...ctx, window, out, id, recurringEventId: series.uid });
  }
  return out;
}

/**
 * `RDATE;VALUE=PERIOD` (RFC 5545 §3.8.5.2): ical.js iterates the periods themselves and cannot
 * place them, so each becomes a plain RDATE at its start, and its own end is kept aside.
 */
function periodRdates(vevent: IcalComponent, zones: ZoneContext): Map<number, IcalTime> {
  const ends = new Map<number, IcalTime>();
  for (const prop of vevent.getAllProperties("rdate")) {
    const values = prop.getValues() as unknown[];
    if (!values.some((v) => v instanceof ICAL.Period)) continue;
    const starts: IcalTime[] = [];
    for (const value of values) {
      if (!(value instanceof ICAL.Period)) {
        starts.push(value as IcalTime);
        continue;
      }
      starts.push(value.start);
      ends.set(instantOfTime(value.start, zones), value.getEnd());
    }
    vevent.removeProperty(prop);
    const plain = new ICAL.Property("rdate", vevent);
    plain.setValues(starts);
    vevent.addProperty(plain);
  }
  return ends;
}

/**
 * DTSTART is the first instance of every recurrence set (RFC 5545 §3.8.5.2), but ical.js
 * iterates only the RDATEs of an event that has RDATEs and no RRULE: it is added among them.
 */
function startAmongRdates(vevent: IcalComponent): void {
  const rdates = vevent.getAllProperties("rdate");
  const dtstart = vevent.getFirstPropertyValue("dtstart");
  if (rdates.length === 0 || vevent.hasProperty("rrule") || !(dtstart instanceof ICAL.Time)) return;
  const listed = rdates.some((p) => (p.getValues() as unknown[]).some((v) => v instanceof ICAL.Time && v.compare(dtstart) === 0));
  if (!listed) vevent.addPropertyWithValue("rdate", dtstart.clone());
}

/**
 * What ical.js may get wrong, said rather than hidden: it counts RDATEs towards an RRULE's COUNT
 * (RFC 5545 counts the rule's own only), and ends a union of several RRULEs one early.
 */
function countWithRdates(vevent: IcalComponent, uid: string, warnings: CalendarWarning[]): void {
  if (vevent.getAllProperties("rrule").length > 1) {
    warnings.push({ uid, reason: "several RRULEs (RFC 5545 allows one): their union is listed, but the last occurrence of a rule may be missing" });
  }
  const count = vevent.getAllProperties("rrule").some((p) => (p.getFirstValue() as { count?: number | null } | null)?.count != null);
  if (count && vevent.hasProperty("rdate")) {
    warnings.push({ uid, reason: "RRULE with COUNT and RDATEs: the last rule occurrences may be missing (each RDATE is counted towards COUNT)" });
  }
}

/**
 * An UNTIL written as a local time (`UNTIL=20240315T140000`) under a zoned DTSTART breaks
 * RFC 5545 §3.3.10, which asks for UTC; clients read it in the DTSTART's zone, and ical.js would
 * read it as UTC and drop the last occurrence. It is rewritten as that instant in UTC.
 */
function untilInSeriesZone(vevent: IcalComponent): void {
  const dtstart = vevent.getFirstPropertyValue("dtstart");
  if (!(dtstart instanceof ICAL.Time) || dtstart.isDate || dtstart.zone == null || dtstart.zone === ICAL.Timezone.utcTimezone || dtstart.zone === ICAL.Timezone.localTimezone) return;
  for (const prop of vevent.getAllProperties("rrule")) {
    const recur = prop.getFirstValue() as InstanceType<typeof ICAL.Recur> | null;
    const until = recur?.until;
    if (recur == null || until == null || until.isDate || (until.zone != null && until.zone !== ICAL.Timezone.localTimezone)) continue;
    const local = dtstart.clone();
    local.year = until.year;
    local.month = until.month;
    local.day = until.day;
    local.hour = until.hour;
    local.minute = until.minute;
    local.second = until.second;
    recur.until = local.convertToZone(ICAL.Timezone.utcTimezone);
  }
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

/**
 * How an override (or EXDATE) names its occurrence: by date in an all-day series or when it is
 * itself a date (clients write both kinds for the other kind of series), else by instant.
 */
function overrideKey(time: IcalTime, allDay: boolean, zones: ZoneContext): string {
  return time.isDate || allDay ? `D${formatDate(time).replaceAll("-", "")}` : `T${instantOfTime(time, zones)}`;
}

/** VEVENTs grouped by UID: the series master (no RECURRENCE-ID) and its overrides, latest versions only. */
function seriesOf(root: IcalComponent, warnings: CalendarWarning[]): Series[] {
  const byUid = new Map<string, { master: IcalComponent | undefined; overrides: Map<string, IcalComponent> }>();
  const keys = new EventKeys();
  for (const vevent of root.getAllSubcomponents("vevent")) {
    const uid = keys.of(vevent);
    try {
      const rid = vevent.getFirstProperty("recurrence-id");
      // Decoded now, so an unreadable RECURRENCE-ID costs its own VEVENT, not the file.
      const key = rid === null ? undefined : String(rid.getFirstValue() ?? "");
      const series = byUid.get(uid) ?? { master: undefined, overrides: new Map<string, IcalComponent>() };
      byUid.set(uid, series);
      if (rid === null || key === undefined) {
        series.master = latest(series.master, vevent, uid, warnings);
        continue;
      }
      if (String(rid.getParameter("range") ?? "").toUpperCase() === "THISANDFUTURE") {
        warnings.push({ uid, reason: "RECURRENCE-ID;RANGE=THISANDFUTURE is applied to its own occurrence only, not to the ones after it" });
      }
      series.overrides.set(key, latest(series.overrides.get(key), vevent, uid, warnings));
    } catch (error) {
      warnings.push({ uid, reason: `skipped, not listed: ${diagnose(vevent, error)}` });
    }
  }
  return [...byUid].map(([uid, s]) => ({ uid, master: s.master, overrides: [...s.overrides.values()] }));
}

/**
 * The newer of two versions of one component: higher SEQUENCE, then later DTSTAMP, then the
 * later in the file. Two different versions that tie on both are a broken export: warned.
 */
function latest(current: IcalComponent | undefined, next: IcalComponent, uid: string, warnings: CalendarWarning[]): IcalComponent {
  if (current === undefined) return next;
  const sequence = (c: IcalComponent) => Number(c.getFirstPropertyValue("sequence") ?? 0) || 0;
  const stamp = (c: IcalComponent) => String(c.getFirstPropertyValue("dtstamp") ?? "");
  const order = sequence(next) - sequence(current) || (stamp(next) > stamp(current) ? 1 : stamp(next) < stamp(current) ? -1 : 0);
  if (order === 0 && next.toString() !== current.toString()) {
    warnings.push({ uid, reason: "two different versions with the same SEQUENCE and DTSTAMP; the later one in the file is listed" });
  }
  return order >= 0 ? next : current;
}
