/**
 * Dates and date-times as the calendar tools take them, checked and computed without a clock
 * or a time zone database: the guest has neither (WASI clocks are disabled), so nothing here
 * reads the current time, and local times are handed to the host with their zone name, never
 * converted here.
 */
import { fail } from "../../sdk/index.js";

/** `2026-11-22`: an all-day bound. */
export interface DateValue {
  kind: "date";
  /** Days since 1970-01-01. */
  day: number;
  text: string;
}

/** `2026-11-22T09:30:00+01:00`, or without an offset (`…T09:30`) when a time zone names it. */
export interface DateTimeValue {
  kind: "date-time";
  /** Milliseconds since 1970-01-01 of the local wall time, as if it were UTC. */
  local: number;
  /** Minutes east of UTC, or undefined when the text has no offset. */
  offsetMinutes: number | undefined;
  /** RFC 3339 with seconds: the input's wall time and offset, normalised. */
  text: string;
}

export type TimeValue = DateValue | DateTimeValue;

export const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})?$/;

/** A date or a date-time; `field` names the input in the error. */
export function parseTime(field: string, text: string): TimeValue {
  const date = DATE.exec(text);
  if (date) {
    const day = civilDay(field, Number(date[1]), Number(date[2]), Number(date[3]));
    return { kind: "date", day, text };
  }
  const m = DATE_TIME.exec(text);
  if (!m) {
    throw fail.invalidInput(`${field}: ${JSON.stringify(text)} is not a date (2026-11-22) or a date-time (2026-11-22T09:30:00+01:00)`);
  }
  const day = civilDay(field, Number(m[1]), Number(m[2]), Number(m[3]));
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6] ?? "0");
  if (hour > 23 || minute > 59 || second > 59) throw fail.invalidInput(`${field}: ${JSON.stringify(text)} has no such time of day`);
  const millis = Math.floor(Number(`0${m[7] ?? ""}`) * 1000);
  const local = day * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  const offsetMinutes = parseOffset(field, m[8]);
  const wall = formatWall(local);
  const text3339 = offsetMinutes === undefined ? wall : wall + formatOffset(offsetMinutes);
  return { kind: "date-time", local, offsetMinutes, text: text3339 };
}

/** The instant of a bound in ms since the epoch; a date is read as UTC midnight. */
export function instantOf(value: TimeValue): number | undefined {
  if (value.kind === "date") return value.day * DAY_MS;
  return value.offsetMinutes === undefined ? undefined : value.local - value.offsetMinutes * 60_000;
}

/** RFC 3339 in UTC, e.g. `2026-11-22T08:30:00Z`. */
export function formatUtc(instant: number): string {
  return `${formatWall(instant)}Z`;
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  const { year, month, dayOfMonth } = civilFromDays(day);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(dayOfMonth, 2)}`;
}

function parseOffset(field: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (text === "Z" || text === "z") return 0;
  const sign = text.startsWith("-") ? -1 : 1;
  const hours = Number(text.slice(1, 3));
  const minutes = Number(text.slice(4, 6));
  if (hours > 23 || minutes > 59) throw fail.invalidInput(`${field}: offset ${text} is out of range`);
  return sign * (hours * 60 + minutes);
}

function formatOffset(minutes: number): string {
  if (minutes === 0) return "Z";
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
}

/** `YYYY-MM-DDTHH:MM:SS[.mmm]` of ms since the epoch, read as UTC. */
function formatWall(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  const rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  const min = Math.floor((rest % 3_600_000) / 60_000);
  const s = Math.floor((rest % 60_000) / 1000);
  const milli = rest % 1000;
  return `${formatDay(day)}T${pad(h, 2)}:${pad(min, 2)}:${pad(s, 2)}${milli === 0 ? "" : `.${pad(milli, 3)}`}`;
}

function civilDay(field: string, year: number, month: number, day: number): number {
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw fail.invalidInput(`${field}: ${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} is not a date on the calendar`);
  }
  return daysFromCivil(year, month, day);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, exact on integers).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function civilFromDays(days: number): { year: number; month: number; dayOfMonth: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const dayOfMonth = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}
