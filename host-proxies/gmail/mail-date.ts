/**
 * The Date header as RFC 5322 §3.3 writes it, including the obsolete forms of §4.3 that real
 * mail still carries: two- and three-digit years, named zones (`EST`, `UT`, `GMT`), military
 * letters, comments (`(PST)`), missing seconds or weekday, and folding; plus the asctime form
 * some old gateways wrote. `Date.parse` reads some of these, misreads others and accepts
 * garbage, so the grammar is checked here.
 */

const MONTHS: Readonly<Record<string, number>> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };
const NAMED_ZONES: Readonly<Record<string, number>> = { ut: 0, utc: 0, gmt: 0, z: 0, est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420 };
const RFC5322 = /^(?:[a-z]{2,9}\.?\s*,?\s*)?(\d{1,2})\s*[-\s]?\s*([a-z]{3,9})\.?\s*[-\s]?\s*(\d{2,4})\s+(\d{1,2})\s*:\s*(\d{2})(?:\s*:\s*(\d{2}))?(?:\.\d+)?\s*([+-]\d{4}|[+-]\d{2}:\d{2}|[a-z]{1,5})?$/i;
const ASCTIME = /^[a-z]{3}\s+([a-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})$/i;
const MAX_DATE_CHARS = 200;

/** Epoch ms of a Date header value, or `undefined` when it is not a date. */
export function parseMailDate(raw: string): number | undefined {
  const text = withoutComments(raw.replace(/\r?\n(?=[ \t])/g, "").slice(0, MAX_DATE_CHARS)).replace(/\s+/g, " ").trim();
  const rfc = RFC5322.exec(text);
  if (rfc !== null) return instant({ day: rfc[1], month: rfc[2], year: rfc[3], hour: rfc[4], minute: rfc[5], second: rfc[6], zone: rfc[7] });
  const asc = ASCTIME.exec(text);
  if (asc !== null) return instant({ day: asc[2], month: asc[1], year: asc[6], hour: asc[3], minute: asc[4], second: asc[5], zone: undefined });
  // A few mailers write ISO 8601; nothing looser is guessed at.
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    const ms = Date.parse(text.replace(" ", "T"));
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

interface Fields {
  day: string | undefined;
  month: string | undefined;
  year: string | undefined;
  hour: string | undefined;
  minute: string | undefined;
  second: string | undefined;
  zone: string | undefined;
}

function instant(f: Fields): number | undefined {
  const month = MONTHS[(f.month ?? "").slice(0, 3).toLowerCase()];
  if (month === undefined) return undefined;
  let year = Number(f.year);
  // RFC 5322 §4.3: a two-digit year below 50 is 20xx, otherwise 19xx; three digits add 1900.
  if ((f.year ?? "").length === 2) year += year < 50 ? 2000 : 1900;
  else if ((f.year ?? "").length === 3) year += 1900;
  const [day, hour, minute, second] = [Number(f.day), Number(f.hour), Number(f.minute), Number(f.second ?? 0)];
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return undefined;
  const offset = zoneMinutes(f.zone);
  if (offset === undefined) return undefined;
  return Date.UTC(year, month, day, hour, minute, Math.min(second, 59)) - offset * 60_000;
}

/** Minutes east of UTC. Unknown letters and military zones count as -0000 (RFC 5322 §4.3). */
function zoneMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined) return 0;
  const numeric = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (numeric !== null) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3]);
    if (Number(numeric[3]) > 59 || minutes > 99 * 60) return undefined;
    return numeric[1] === "-" ? -minutes : minutes;
  }
  return NAMED_ZONES[zone.toLowerCase()] ?? 0;
}

/** Drops `( … )` comments (nested, with quoted-pairs) from a header value. */
function withoutComments(value: string): string {
  let out = "";
  let depth = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "\\" && depth > 0) i++;
    else if (c === "(") depth++;
    else if (c === ")" && depth > 0) depth--;
    else if (depth === 0) out += c;
  }
  return out;
}
