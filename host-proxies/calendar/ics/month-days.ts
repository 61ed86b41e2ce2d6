/**
 * Rules that name a day of the month some months lack. RFC 5545 §3.3.10: a rule that yields an
 * invalid date (February 29th in a common year, April 31st) must ignore it and not count it, so
 * `DTSTART;VALUE=DATE:20240229` with `RRULE:FREQ=YEARLY` occurs in leap years only, and
 * `BYMONTHDAY=-1` is how a file says "the last day of February". RFC 7529's SKIP (with
 * `RSCALE=GREGORIAN`, rscale.ts) may instead move such a date BACKWARD (to February 28th) or
 * FORWARD (to March 1st). ical.js does neither: it rolls the date over (February 29th → March 1st
 * every common year, "January 31st, February and March" → March 2nd) and counts the result
 * towards COUNT.
 *
 * So a YEARLY or MONTHLY rule made only of FREQ, INTERVAL, COUNT, UNTIL, BYMONTH, BYMONTHDAY and
 * WKST whose days may be invalid is expanded here, up to the end of the listing's window, and
 * handed to ical.js as RDATEs in the series' own zone (the rule itself is removed, so overrides,
 * EXDATEs and RDATEs of the file combine with them as before). Any other rule stays with ical.js,
 * and `rolledOver` drops what it rolls over; COUNT may then come out short, which is warned.
 */
import ICAL from "ical.js";
import type { IcalTime } from "./occurrence.js";
import type { IcalComponent } from "./read.js";
import { SKIP_PARAMETER } from "./rscale.js";
import type { CalendarWarning } from "./warnings.js";

type Recur = InstanceType<typeof ICAL.Recur>;
type Skip = "OMIT" | "BACKWARD" | "FORWARD";

const FAMILY_PARTS = new Set(["BYMONTH", "BYMONTHDAY"]);
/** Candidate months walked at most for one rule (a rule on a day no month has must still end). */
const MAX_PERIODS = 120_000;

export interface MonthDayOptions {
  /** ms: occurrences from here on are not needed. */
  until: number;
  /** Occurrences one series may produce. */
  maxOccurrences: number;
  instantOf: (time: IcalTime) => number;
  uid: string;
  warnings: CalendarWarning[];
}

/**
 * Expands here the RRULEs of `vevent` that ical.js would roll over (see the file comment) and
 * returns a check for what the remaining ones produce: `true` for an occurrence to drop.
 */
export function expandMonthDays(vevent: IcalComponent, o: MonthDayOptions): (time: IcalTime) => boolean {
  const dtstart = vevent.getFirstPropertyValue("dtstart");
  if (!(dtstart instanceof ICAL.Time)) return () => false;
  const generated: IcalTime[] = [];
  const kept: Recur[] = [];
  let converted = false;
  for (const prop of vevent.getAllProperties("rrule")) {
    const recur = prop.getFirstValue() as Recur | null;
    if (recur === null) continue;
    const skip = skipOf(prop.getParameter(SKIP_PARAMETER.toLowerCase()));
    if (!invalidDaysPossible(recur, dtstart)) {
      kept.push(recur);
      continue;
    }
    if (!inFamily(recur)) {
      kept.push(recur);
      if (recur.count != null || skip !== "OMIT") {
        o.warnings.push({ uid: o.uid, reason: `RRULE names days some months lack, in a form this reader leaves to ical.js: such dates are omitted${skip === "OMIT" ? "" : ` (not moved ${skip})`}${recur.count != null ? ", and the COUNT may end early" : ""}` });
      }
      continue;
    }
    generated.push(...expandRule(recur, dtstart, { ...o, skip }));
    vevent.removeProperty(prop);
    converted = true;
  }
  if (converted) {
    // DTSTART among them keeps the series recurring (and its ids alike) when the window holds no other date.
    const rdate = new ICAL.Property("rdate", vevent);
    rdate.setValues([dtstart.clone(), ...generated]);
    vevent.addProperty(rdate);
  }
  const guards = kept.map((r) => guardOf(r, dtstart));
  // An occurrence may come from any kept rule: dropped only when no kept rule names its day.
  if (guards.length === 0 || guards.some((g) => g === undefined)) return () => false;
  const own = new Set([dtstart, ...vevent.getAllProperties("rdate").flatMap((p) => p.getValues() as unknown[])].filter((v): v is IcalTime => v instanceof ICAL.Time).map((t) => o.instantOf(t)));
  return (time) => !own.has(o.instantOf(time)) && guards.every((allows) => !allows!(time));
}

function skipOf(value: unknown): Skip {
  const text = typeof value === "string" ? value.toUpperCase() : "OMIT";
  return text === "BACKWARD" || text === "FORWARD" ? text : "OMIT";
}

/** The days of the month a rule names: BYMONTHDAY, or DTSTART's day when no other BY-part picks days. */
function monthDays(recur: Recur, dtstart: IcalTime): number[] | undefined {
  const parts = recur.parts as Record<string, unknown[] | undefined>;
  const explicit = parts.BYMONTHDAY as number[] | undefined;
  if (explicit !== undefined && explicit.length > 0) return explicit;
  if (parts.BYDAY !== undefined || parts.BYYEARDAY !== undefined || parts.BYWEEKNO !== undefined) return undefined;
  return recur.freq === "YEARLY" || recur.freq === "MONTHLY" ? [dtstart.day] : undefined;
}

function invalidDaysPossible(recur: Recur, dtstart: IcalTime): boolean {
  return (monthDays(recur, dtstart) ?? []).some((d) => d > 28 || d < -28);
}

function inFamily(recur: Recur): boolean {
  if (recur.freq !== "YEARLY" && recur.freq !== "MONTHLY") return false;
  return Object.keys(recur.parts).every((part) => FAMILY_PARTS.has(part));
}

/** Whether an occurrence of a kept rule lies on a day the rule names (`undefined`: the rule does not say). */
function guardOf(recur: Recur, dtstart: IcalTime): ((time: IcalTime) => boolean) | undefined {
  const days = monthDays(recur, dtstart);
  if (days === undefined) return undefined;
  return (time) => days.some((d) => (d > 0 ? d : daysIn(time.year, time.month) + d + 1) === time.day);
}

/** The rule's occurrences from DTSTART (itself the first, RFC 5545 §3.8.5.2) until `until`, COUNT or UNTIL. */
function expandRule(recur: Recur, dtstart: IcalTime, o: MonthDayOptions & { skip: Skip }): IcalTime[] {
  const interval = Math.max(1, recur.interval || 1);
  const parts = recur.parts as Record<string, number[] | undefined>;
  const months = new Set(parts.BYMONTH ?? (recur.freq === "YEARLY" ? [dtstart.month] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
  const days = monthDays(recur, dtstart) ?? [dtstart.day];
  const until = recur.until == null ? Number.POSITIVE_INFINITY : o.instantOf(recur.until);
  const start = o.instantOf(dtstart);
  const out: IcalTime[] = [];
  let count = 1;
  const first = dtstart.year * 12 + (dtstart.month - 1);
  const step = recur.freq === "YEARLY" ? 12 * interval : interval;
  for (let period = 0; period < MAX_PERIODS; period++) {
    const base = recur.freq === "YEARLY" ? dtstart.year * 12 + period * step : first + period * step;
    // A YEARLY period is a whole year; a MONTHLY one is one month.
    const monthsHere = recur.freq === "YEARLY" ? [...months].sort((a, b) => a - b).map((m) => base + m - 1) : months.has((base % 12) + 1) ? [base] : [];
    if (o.instantOf(at(dtstart, Math.floor(base / 12), (base % 12) + 1, 1)) >= o.until) break;
    for (const index of monthsHere) {
      const dates = datesIn(Math.floor(index / 12), (index % 12) + 1, days, o.skip);
      for (const [year, month, day] of dates) {
        const time = at(dtstart, year, month, day);
        const instant = o.instantOf(time);
        if (instant <= start) continue;
        if (instant > until || instant >= o.until || (recur.count != null && count >= recur.count)) return out;
        if (out.length >= o.maxOccurrences) return out;
        out.push(time);
        count++;
      }
    }
  }
  return out;
}

/** The dates a month gives for `days` under `skip`, in order, each once. */
function datesIn(year: number, month: number, days: number[], skip: Skip): Array<[number, number, number]> {
  const length = daysIn(year, month);
  const found = new Map<string, [number, number, number]>();
  for (const d of days) {
    const day = d > 0 ? d : length + d + 1;
    let date: [number, number, number] | undefined;
    if (day >= 1 && day <= length) date = [year, month, day];
    else if (skip === "BACKWARD") date = day > length ? [year, month, length] : previousMonthEnd(year, month);
    else if (skip === "FORWARD") date = day > length ? nextMonthStart(year, month) : [year, month, 1];
    if (date !== undefined) found.set(date.join("-"), date);
  }
  return [...found.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
}

function previousMonthEnd(year: number, month: number): [number, number, number] {
  const y = month === 1 ? year - 1 : year;
  const m = month === 1 ? 12 : month - 1;
  return [y, m, daysIn(y, m)];
}

function nextMonthStart(year: number, month: number): [number, number, number] {
  return month === 12 ? [year + 1, 1, 1] : [year, month + 1, 1];
}

/** DTSTART's time of day and zone on another date. */
function at(dtstart: IcalTime, year: number, month: number, day: number): IcalTime {
  const time = dtstart.clone();
  time.year = year;
  time.month = month;
  time.day = day;
  return time;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !leap(year) ? 1 : 0);
}

function leap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
