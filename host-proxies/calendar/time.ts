/**
 * Instants, wall-clock times and IANA time zones, from the platform's tz database (`Intl`):
 * no second copy of the database to keep current. RFC 3339 in and out (RFC 3339 §5.6), with
 * RFC 5545's rules for wall-clock times that a zone skips or repeats (§3.3.5).
 */

/** A wall-clock time: what a clock on the wall shows, in no particular zone. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** A parsed RFC 3339 date-time: its wall-clock fields and, when it had one, its offset. */
export interface ParsedDateTime {
  wall: WallTime;
  /** Offset east of UTC in seconds; `undefined` for a local time with no offset. */
  offsetSeconds: number | undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})?$/;
// An IANA name is letters, digits and `_+-/`; refuse offsets (`+01:00`) and Windows names early.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", era: "short",
      year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
    });
    // A cache of pure values; the bound keeps a hostile stream of names from growing it.
    if (formatters.size > 500) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/** The canonical IANA name of `name` (`europe/zurich` → `Europe/Zurich`), or `undefined`. */
export function canonicalZone(name: string): string | undefined {
  if (!ZONE_NAME.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The wall-clock time in `zone` at instant `epochMs` (whole seconds). */
export function wallAt(epochMs: number, zone: string): WallTime {
  const fields: Record<string, string> = {};
  for (const part of formatter(zone).formatToParts(epochMs)) fields[part.type] = part.value;
  const year = Number(fields.year);
  return {
    year: fields.era === "BC" || fields.era === "B" ? 1 - year : year,
    month: Number(fields.month), day: Number(fields.day),
    hour: Number(fields.hour), minute: Number(fields.minute), second: Number(fields.second),
  };
}

/** The wall time read as if it were UTC, in milliseconds. */
export function wallAsUtc(wall: WallTime): number {
  const ms = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // Date.UTC maps years 0–99 to 1900–1999.
  return wall.year >= 0 && wall.year < 100 ? new Date(ms).setUTCFullYear(wall.year) : ms;
}

/** Offset of `zone` from UTC at `epochMs`, in seconds east. */
export function offsetAt(epochMs: number, zone: string): number {
  const whole = Math.floor(epochMs / 1000) * 1000;
  return (wallAsUtc(wallAt(whole, zone)) - whole) / 1000;
}

/**
 * The instant a wall-clock time in `zone` names. RFC 5545 §3.3.5: a time the zone skips (a
 * spring-forward gap) is read with the offset from before the gap; a time it repeats (the
 * autumn fold) is the first of the two.
 */
export function wallToInstant(wall: WallTime, zone: string): number {
  const asUtc = wallAsUtc(wall);
  const before = offsetAt(asUtc - 86_400_000, zone);
  const after = offsetAt(asUtc + 86_400_000, zone);
  const candidates = [asUtc - before * 1000, asUtc - after * 1000].filter((t) => wallAsUtc(wallAt(t, zone)) === asUtc);
  if (candidates.length === 0) return asUtc - before * 1000;
  return Math.min(...candidates);
}

/** `2026-01-15` → wall midnight, or `undefined` when it is not a real calendar date. */
export function parseDate(text: string): WallTime | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const wall = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: 0, minute: 0, second: 0 };
  return realDate(wall) ? wall : undefined;
}

/** An RFC 3339 date-time, with or without its offset; `undefined` when malformed. */
export function parseDateTime(text: string): ParsedDateTime | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const wall = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6]) };
  // RFC 3339 allows second 60 (a leap second); JavaScript time has none, so refuse it.
  if (!realDate(wall) || wall.hour > 23 || wall.minute > 59 || wall.second > 59) return undefined;
  const zone = m[8];
  if (zone === undefined) return { wall, offsetSeconds: undefined };
  if (zone === "Z" || zone === "z") return { wall, offsetSeconds: 0 };
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  return { wall, offsetSeconds: (zone.startsWith("-") ? -1 : 1) * (hours * 3600 + minutes * 60) };
}

/** The instant of an RFC 3339 date-time that has an offset; `undefined` otherwise. */
export function instantOf(text: string): number | undefined {
  const parsed = parseDateTime(text);
  if (parsed?.offsetSeconds === undefined) return undefined;
  return wallAsUtc(parsed.wall) - parsed.offsetSeconds * 1000;
}

/**
 * RFC 3339 for `epochMs`: wall time and offset in `zone`, or UTC (`Z`) without one. An offset
 * with seconds (local mean time before ~1900) has no RFC 3339 form, so such instants are in UTC.
 */
export function formatInstant(epochMs: number, zone?: string): string {
  const offset = zone === undefined ? 0 : offsetAt(epochMs, zone);
  if (zone === undefined || offset % 60 !== 0) return `${formatWall(wallAt(epochMs, "UTC"))}Z`;
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset) / 60;
  return `${formatWall(wallAt(epochMs, zone))}${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
}

/** `YYYY-MM-DD`. */
export function formatDate(wall: Pick<WallTime, "year" | "month" | "day">): string {
  return `${pad(wall.year, 4)}-${pad(wall.month, 2)}-${pad(wall.day, 2)}`;
}

function formatWall(wall: WallTime): string {
  return `${formatDate(wall)}T${pad(wall.hour, 2)}:${pad(wall.minute, 2)}:${pad(wall.second, 2)}`;
}

function realDate(wall: WallTime): boolean {
  if (wall.year < 1 || wall.month < 1 || wall.month > 12 || wall.day < 1) return false;
  return wall.day <= new Date(Date.UTC(2000, wall.month, 0)).getUTCDate() - (wall.month === 2 && !leap(wall.year) ? 1 : 0);
}

function leap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}
