/**
 * Dates and date-times as the calendar tools take them, checked and computed without a clock
 * or a time zone database: the guest has neither (WASI clocks are disabled), so nothing here
 * reads the current time, and local times are handed to the host with their zone name, never
 * converted here. Times are milliseconds in f64, as the host's JSON numbers are.
 */
import { quote } from "../../sdk-as/json-write";

export const DAY_MS: f64 = 86400000;

export const enum TimeKind { Date, DateTime }

/**
 * `2026-11-22` (a date: `day` is days since 1970-01-01) or `2026-11-22T09:30:00+01:00`, or
 * without an offset (`…T09:30`) when a time zone names it (a date-time: `local` is the wall time
 * in ms since the epoch as if it were UTC; `hasOffset` false when the text has none).
 */
export class TimeValue {
  kind: TimeKind = TimeKind.Date;
  day: f64 = 0;
  local: f64 = 0;
  hasOffset: bool = false;
  offsetMinutes: f64 = 0;
  /** The date as given, or RFC 3339 with seconds: the input's wall time and offset, normalised. */
  text: string = "";
}

/** A parsed time, or the reason it is not one (`field: …`). */
export class Parsed {
  constructor(public value: TimeValue, public error: string | null) {}
}

function failed(message: string): Parsed {
  return new Parsed(new TimeValue(), message);
}

export function json(s: string): string {
  const parts = new Array<string>();
  quote(s, parts);
  return parts.join("");
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

/** Whether `count` ASCII digits stand at `at`. */
function digitsAt(s: string, at: i32, count: i32): bool {
  if (at + count > s.length) return false;
  for (let i = at; i < at + count; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}

function num(s: string, at: i32, count: i32): f64 {
  let v: f64 = 0;
  for (let i = at; i < at + count; i++) v = v * 10 + <f64>(s.charCodeAt(i) - 0x30);
  return v;
}

/** `YYYY-MM-DD` at the start of `s`, in the shape the date patterns take (digits and dashes). */
function dateShape(s: string): bool {
  return digitsAt(s, 0, 4) && s.charCodeAt(4) == 0x2d && digitsAt(s, 5, 2) && s.charCodeAt(7) == 0x2d && digitsAt(s, 8, 2);
}

/** A date or a date-time; `field` names the input in the error. */
export function parseTime(field: string, text: string): Parsed {
  const n = text.length;
  if (n == 10 && dateShape(text)) {
    const day = civilDay(field, num(text, 0, 4), num(text, 5, 2), num(text, 8, 2));
    if (day.error != null) return day;
    const v = new TimeValue();
    v.kind = TimeKind.Date;
    v.day = day.value.day;
    v.text = text;
    return new Parsed(v, null);
  }
  const shape = dateTimeShape(text);
  if (shape < 0) {
    return failed(field + ": " + json(text) + " is not a date (2026-11-22) or a date-time (2026-11-22T09:30:00+01:00)");
  }
  const day = civilDay(field, num(text, 0, 4), num(text, 5, 2), num(text, 8, 2));
  if (day.error != null) return day;
  const hour = num(text, 11, 2);
  const minute = num(text, 14, 2);
  let i = 16;
  let second: f64 = 0;
  let fraction = "";
  if (i < n && text.charCodeAt(i) == 0x3a) {
    second = num(text, 17, 2);
    i = 19;
    if (i < n && text.charCodeAt(i) == 0x2e) {
      const start = i;
      i++;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      fraction = text.substring(start, i);
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return failed(field + ": " + json(text) + " has no such time of day");
  const millis = Math.floor(parseFloat("0" + fraction) * 1000);
  const local = day.value.day * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  const v = new TimeValue();
  v.kind = TimeKind.DateTime;
  v.local = local;
  if (i < n) {
    const c = text.charCodeAt(i);
    if (c == 0x5a || c == 0x7a) {
      v.hasOffset = true;
      v.offsetMinutes = 0;
    } else {
      const hours = num(text, i + 1, 2);
      const minutes = num(text, i + 4, 2);
      if (hours > 23 || minutes > 59) return failed(field + ": offset " + text.substring(i) + " is out of range");
      v.hasOffset = true;
      v.offsetMinutes = (c == 0x2d ? -1 : 1) * (hours * 60 + minutes);
    }
  }
  const wall = formatWall(local);
  v.text = v.hasOffset ? wall + formatOffset(v.offsetMinutes) : wall;
  return new Parsed(v, null);
}

/**
 * Whether `s` is `YYYY-MM-DD[Tt ]HH:MM[:SS[.f{1,9}]][Z|z|±HH:MM]` as a whole: its length, or -1.
 */
function dateTimeShape(s: string): i32 {
  const n = s.length;
  if (n < 16 || !dateShape(s)) return -1;
  const t = s.charCodeAt(10);
  if (t != 0x54 && t != 0x74 && t != 0x20) return -1;
  if (!digitsAt(s, 11, 2) || s.charCodeAt(13) != 0x3a || !digitsAt(s, 14, 2)) return -1;
  let i = 16;
  if (i < n && s.charCodeAt(i) == 0x3a) {
    if (!digitsAt(s, 17, 2)) return -1;
    i = 19;
    if (i < n && s.charCodeAt(i) == 0x2e) {
      i++;
      const start = i;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
      if (i == start || i - start > 9) return -1;
    }
  }
  if (i == n) return n;
  const c = s.charCodeAt(i);
  if ((c == 0x5a || c == 0x7a) && i + 1 == n) return n;
  if ((c == 0x2b || c == 0x2d) && i + 6 == n && digitsAt(s, i + 1, 2) && s.charCodeAt(i + 3) == 0x3a && digitsAt(s, i + 4, 2)) return n;
  return -1;
}

/** The instant of a bound in ms since the epoch (a date is read as UTC midnight), or NaN without an offset. */
export function instantOf(value: TimeValue): f64 {
  if (value.kind == TimeKind.Date) return value.day * DAY_MS;
  return value.hasOffset ? value.local - value.offsetMinutes * 60000 : NaN;
}

/** RFC 3339 in UTC, e.g. `2026-11-22T08:30:00Z`. */
export function formatUtc(instant: f64): string {
  return formatWall(instant) + "Z";
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: f64): string {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const dayOfMonth = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(dayOfMonth, 2);
}

function formatOffset(minutes: f64): string {
  if (minutes == 0) return "Z";
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return sign + pad(Math.floor(abs / 60), 2) + ":" + pad(abs % 60, 2);
}

/** `YYYY-MM-DDTHH:MM:SS[.mmm]` of ms since the epoch, read as UTC. */
function formatWall(ms: f64): string {
  const day = Math.floor(ms / DAY_MS);
  const rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3600000);
  const min = Math.floor((rest % 3600000) / 60000);
  const s = Math.floor((rest % 60000) / 1000);
  const milli = rest % 1000;
  return formatDay(day) + "T" + pad(h, 2) + ":" + pad(min, 2) + ":" + pad(s, 2) + (milli == 0 ? "" : "." + pad(milli, 3));
}

function civilDay(field: string, year: f64, month: f64, day: f64): Parsed {
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return failed(field + ": " + pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + " is not a date on the calendar");
  }
  const v = new TimeValue();
  v.day = daysFromCivil(year, month, day);
  return new Parsed(v, null);
}

function daysInMonth(year: f64, month: f64): f64 {
  if (month == 2) return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28;
  return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
}

// Howard Hinnant's days_from_civil (proleptic Gregorian, exact on integers).
function daysFromCivil(year: f64, month: f64, day: f64): f64 {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** A whole number in decimal, left-padded with zeros to `width`. */
function pad(n: f64, width: i32): string {
  return (<i64>n).toString().padStart(width, "0");
}
