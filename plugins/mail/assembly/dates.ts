/**
 * The time of an RFC 3339 date (what the gmail proxy returns, wit/host/gmail.wit) in milliseconds
 * since the epoch, as `Date.parse` reads the same text: `YYYY-MM-DD` (a day past its month's end rolls over, as V8's does), optionally `THH:mm`,
 * `:ss`, a fraction, and `Z` or `±HH:mm`. Anything else is NaN.
 */
export function parseDate(s: string): f64 {
  const n = s.length;
  if (n < 10) return NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31) return NaN;
  if (s.charCodeAt(4) != 0x2d || s.charCodeAt(7) != 0x2d) return NaN;
  let ms: f64 = <f64>daysFromCivil(year, month, day) * 86400000;
  if (n == 10) return ms;
  if (s.charCodeAt(10) != 0x54 || n < 16 || s.charCodeAt(13) != 0x3a) return NaN;
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  if (hour < 0 || hour > 24 || minute < 0 || minute > 59) return NaN;
  let second = 0;
  let millis: f64 = 0;
  let i = 16;
  if (i < n && s.charCodeAt(i) == 0x3a) {
    second = digits(s, 17, 2);
    if (second < 0 || second > 59) return NaN;
    i = 19;
    if (i < n && s.charCodeAt(i) == 0x2e) {
      i++;
      const start = i;
      let scale: f64 = 100;
      while (i < n && isDigit(s.charCodeAt(i))) {
        millis += <f64>(s.charCodeAt(i) - 0x30) * scale;
        scale /= 10;
        i++;
      }
      if (i == start) return NaN;
      millis = Math.floor(millis);
    }
  }
  if (hour == 24 && (minute != 0 || second != 0 || millis != 0)) return NaN;
  let offset = 0;
  if (i < n) {
    const c = s.charCodeAt(i);
    if (c == 0x5a && i + 1 == n) offset = 0;
    else if ((c == 0x2b || c == 0x2d) && i + 6 == n && s.charCodeAt(i + 3) == 0x3a) {
      const oh = digits(s, i + 1, 2);
      const om = digits(s, i + 4, 2);
      if (oh < 0 || oh > 23 || om < 0 || om > 59) return NaN;
      offset = (c == 0x2b ? 1 : -1) * (oh * 60 + om);
    } else return NaN;
  }
  ms += <f64>(hour * 3600 + minute * 60 + second - offset * 60) * 1000 + millis;
  return ms;
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

/** The `count` decimal digits at `at`, or -1. */
function digits(s: string, at: i32, count: i32): i32 {
  if (at + count > s.length) return -1;
  let v = 0;
  for (let i = at; i < at + count; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm). */
function daysFromCivil(year: i32, month: i32, day: i32): i64 {
  const y: i64 = <i64>(month <= 2 ? year - 1 : year);
  const era: i64 = (y >= 0 ? y : y - 399) / 400;
  const yoe: i64 = y - era * 400;
  const mp: i64 = <i64>(month > 2 ? month - 3 : month + 9);
  const doy: i64 = (153 * mp + 2) / 5 + <i64>day - 1;
  const doe: i64 = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}
