/**
 * Date-valued properties (and DURATION) as clients really write them (RFC 5545 §3.3.4, §3.3.5, §3.3.9):
 * dates without `VALUE=DATE`, empty RDATE/EXDATE lines, and lists with one unreadable value.
 * Mending happens on the unfolded text, before ical.js sees it, because ical.js reads a bare
 * `20240101` as a broken date-time and throws the whole event away.
 */

const DATE_PROPERTIES = new Set(["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"]);
const LISTS = new Set(["EXDATE", "RDATE"]);
const DATE = /^\d{8}$/;
const DATE_TIME = /^\d{8}T\d{6}Z?$/;
const PERIOD = /^\d{8}T\d{6}Z?\/(?:\d{8}T\d{6}Z?|[+-]?P(?:\d+W|(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?))$/;
const MAX_QUOTED = 80;
/** Longer than any event: ical.js loops on such a DURATION (collective/icalendar's invalid_duration.ics). */
const MAX_DURATION_SECONDS = 100 * 366 * 86_400;
const DURATION = /^[+-]?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i;

/** `line` (whose value starts after `colon`) mended, dropped (`line` undefined), or as it was. */
export function mendDateLine(line: string, colon: number): { line?: string | undefined; why?: string } {
  const head = line.slice(0, colon);
  const name = (/^[^;:]*/.exec(head)?.[0] ?? "").toUpperCase();
  if (name === "DURATION") return absurdDuration(line.slice(colon + 1).trim()) ? { why: `dropped ${quoted(line)}: a DURATION of more than 100 years` } : { line };
  if (!DATE_PROPERTIES.has(name)) return { line };
  const value = line.slice(colon + 1).trim();
  if (value === "") return { why: `dropped ${quoted(line)}: an empty ${name}` };
  const declared = /;VALUE=([A-Z-]+)/i.exec(head)?.[1]?.toUpperCase();
  if (!LISTS.has(name)) {
    return declared === undefined && DATE.test(value) ? { line: `${head};VALUE=DATE:${value}` } : { line };
  }
  const values = value.split(",").map((v) => v.trim());
  const good = values.filter((v) => readable(v, declared));
  const bad = values.filter((v) => !readable(v, declared));
  if (good.length === 0) return { why: `dropped ${quoted(line)}: no readable ${declared ?? "DATE or DATE-TIME"} value in it` };
  const why = bad.length === 0 ? undefined : `dropped ${bad.map((v) => JSON.stringify(v.slice(0, 40))).join(", ")} from ${name}: not a ${declared ?? "DATE or DATE-TIME"}; the rest of ${name} is kept`;
  // Google writes all-day RDATEs as `RDATE:20121210Z`: a date with a stray `Z`.
  const allDates = declared === undefined && good.every((v) => /^\d{8}Z?$/.test(v));
  const mended = allDates ? `${head};VALUE=DATE:${good.map((v) => v.replace(/Z$/, "")).join(",")}` : `${head}:${good.join(",")}`;
  return why === undefined ? { line: mended === line ? line : mended } : { line: mended, why };
}

function absurdDuration(value: string): boolean {
  const m = DURATION.exec(value);
  if (m === null) return false;
  const [w, d, h, min, sec] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number];
  return w * 604_800 + d * 86_400 + h * 3_600 + min * 60 + sec > MAX_DURATION_SECONDS;
}

function readable(value: string, declared: string | undefined): boolean {
  // Google writes `RDATE;VALUE=DATE:20121210Z`; ical.js reads the date and ignores the `Z`.
  if (declared === "DATE") return /^\d{8}Z?$/.test(value) || DATE_TIME.test(value);
  if (declared === "PERIOD") return PERIOD.test(value);
  return /^\d{8}Z?$/.test(value) || DATE_TIME.test(value);
}

function quoted(line: string): string {
  return JSON.stringify(line.length > MAX_QUOTED ? `${line.slice(0, MAX_QUOTED)}…` : line);
}
