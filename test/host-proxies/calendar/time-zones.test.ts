/**
 * Time and zones: RFC 3339 in and out, wall times a zone skips or repeats (RFC 5545 §3.3.5),
 * TZIDs named the many ways files name them, and generated VTIMEZONEs checked against the
 * IANA database by ical.js itself.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import ICAL from "ical.js";
import { formatInstant, instantOf, parseDateTime, wallToInstant } from "../../../host-proxies/calendar/time.js";
import { vtimezoneLines } from "../../../host-proxies/calendar/ics/vtimezone.js";
import { ianaZoneOf } from "../../../host-proxies/calendar/ics/zones.js";

const wall = (text: string) => {
  const parsed = parseDateTime(text);
  assert.ok(parsed !== undefined, text);
  return parsed.wall;
};
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

type WallRow = [why: string, local: string, zone: string, utc: string];

const WALL_ROWS: WallRow[] = [
  ["winter", "2026-01-15T09:00:00", "Europe/Zurich", "2026-01-15T08:00:00Z"],
  ["summer", "2026-07-15T09:00:00", "Europe/Zurich", "2026-07-15T07:00:00Z"],
  ["a skipped time is read with the offset before the gap", "2026-03-29T02:30:00", "Europe/Zurich", "2026-03-29T01:30:00Z"],
  ["a repeated time is the first of the two", "2026-10-25T02:30:00", "Europe/Zurich", "2026-10-25T00:30:00Z"],
  ["US spring gap", "2026-03-08T02:30:00", "America/New_York", "2026-03-08T07:30:00Z"],
  ["a 45-minute offset", "2026-01-15T09:00:00", "Pacific/Chatham", "2026-01-14T19:15:00Z"],
  ["a half-hour zone", "2026-01-15T09:00:00", "Asia/Kolkata", "2026-01-15T03:30:00Z"],
];

for (const [why, local, zone, utc] of WALL_ROWS) {
  test(`wallToInstant: ${why} (${local} ${zone} = ${utc})`, () => {
    assert.equal(iso(wallToInstant(wall(local), zone)), utc);
  });
}

test("formatInstant: wall time and offset in the zone, or Z without one", () => {
  const at = Date.parse("2026-07-15T07:00:00Z");
  assert.equal(formatInstant(at, "Europe/Zurich"), "2026-07-15T09:00:00+02:00");
  assert.equal(formatInstant(at, "America/St_Johns"), "2026-07-15T04:30:00-02:30");
  assert.equal(formatInstant(at), "2026-07-15T07:00:00Z");
  assert.equal(formatInstant(Date.parse("1850-01-01T00:00:00Z"), "Europe/Zurich"), "1850-01-01T00:00:00Z", "local mean time has no RFC 3339 offset");
});

test("parseDateTime / instantOf: RFC 3339 only", () => {
  for (const bad of ["2026-01-15 09:00:00Z", "2026-1-15T09:00:00Z", "2026-01-15T24:00:00Z", "2026-02-29T00:00:00Z", "2026-01-15T09:00:60Z", "2026-01-15T09:00:00+24:00", "tomorrow"]) {
    assert.equal(parseDateTime(bad), undefined, bad);
  }
  assert.equal(instantOf("2024-02-29T12:00:00.5+01:00"), Date.parse("2024-02-29T11:00:00Z"), "control: leap day, fraction, offset");
  assert.equal(instantOf("2026-01-15T09:00:00"), undefined, "no offset, no instant");
});

type ZoneRow = [tzid: string, iana: string | undefined];

const ZONE_ROWS: ZoneRow[] = [
  ["Europe/Zurich", "Europe/Zurich"],
  ["europe/zurich", "Europe/Zurich"],
  ["W. Europe Standard Time", "Europe/Berlin"],
  ["Pacific Standard Time", "America/Los_Angeles"],
  ["US Mountain Standard Time", "America/Phoenix"],
  ["Jordan Standard Time", "Asia/Amman"],
  ["GMT Standard Time", "Europe/London"],
  ["/mozilla.org/20050126_1/Europe/London", "Europe/London"],
  ["/softwarestudio.org/Olson_20011030_5/America/New_York", "America/New_York"],
  ["/citadel.org/20190914_1/America/Argentina/Buenos_Aires", "America/Buenos_Aires"],
  ["Nowhere Standard Time", undefined],
  ["+01:00", undefined],
  ["", undefined],
];

for (const [tzid, iana] of ZONE_ROWS) {
  test(`ianaZoneOf(${JSON.stringify(tzid)}) = ${String(iana)}`, () => {
    assert.equal(ianaZoneOf(tzid), iana);
  });
}

test("ianaZoneOf: a private TZID falls back to its VTIMEZONE's X-LIC-LOCATION", () => {
  assert.equal(ianaZoneOf("Custom Zone 1", "Asia/Tokyo"), "Asia/Tokyo");
  assert.equal(ianaZoneOf("Custom Zone 1"), undefined, "control: without it");
});

const GENERATED = ["Europe/Zurich", "America/Los_Angeles", "Australia/Sydney", "America/Santiago", "Europe/Dublin", "Pacific/Chatham", "Asia/Tokyo", "America/Phoenix", "Asia/Kolkata", "Africa/Casablanca"];

for (const zone of GENERATED) {
  test(`a generated VTIMEZONE for ${zone} gives ical.js the IANA offsets`, () => {
    const lines = vtimezoneLines(zone, { fromYear: 2025, toYear: 2026 });
    const root = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${lines.join("\r\n")}\r\nEND:VCALENDAR\r\n`) as unknown[]);
    const vtimezone = root.getFirstSubcomponent("vtimezone");
    assert.ok(vtimezone !== null);
    const tz = new ICAL.Timezone(vtimezone);
    // Zones that follow yearly rules get RRULEs and stay right afterwards; Casablanca's
    // Ramadan changes are listed (RDATEs) only for the years asked.
    const until = zone === "Africa/Casablanca" ? Date.UTC(2027, 0, 1) : Date.UTC(2031, 0, 1);
    const intl = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    const offset = (at: number) => {
      const m = /GMT(?:([+-])(\d{2}):(\d{2}))?/.exec(intl.formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "");
      return m?.[1] === undefined ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60);
    };
    let checked = 0;
    for (let at = Date.UTC(2025, 0, 1); at < until; at += 5 * 3_600_000 + 17 * 60_000) {
      // Within hours of a change a wall time is skipped or repeated: ical.js's reading of the
      // local time it converted to is then ambiguous by design, so those samples say nothing.
      if (offset(at - 3 * 3_600_000) !== offset(at + 3 * 3_600_000)) continue;
      const local = ICAL.Time.fromJSDate(new Date(at), true).convertToZone(tz);
      assert.equal(local.utcOffset(), offset(at), `${zone} at ${iso(at)}`);
      checked++;
    }
    assert.ok(checked > 1000);
  });
}

test("a generated VTIMEZONE uses yearly rules where the zone has them, RDATEs where not", () => {
  const zurich = vtimezoneLines("Europe/Zurich", { fromYear: 2025, toYear: 2026 });
  assert.deepEqual(zurich.filter((l) => l.startsWith("RRULE")), ["RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"]);
  const us = vtimezoneLines("America/New_York", { fromYear: 2025, toYear: 2026 });
  assert.deepEqual(us.filter((l) => l.startsWith("RRULE")), ["RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU"]);
  const tokyo = vtimezoneLines("Asia/Tokyo", { fromYear: 2025, toYear: 2026 });
  assert.deepEqual(tokyo, ["BEGIN:VTIMEZONE", "TZID:Asia/Tokyo", "X-LIC-LOCATION:Asia/Tokyo", "BEGIN:STANDARD", "DTSTART:16010101T000000", "TZOFFSETFROM:+0900", "TZOFFSETTO:+0900", "END:STANDARD", "END:VTIMEZONE"]);
  const casablanca = vtimezoneLines("Africa/Casablanca", { fromYear: 2025, toYear: 2026 });
  assert.ok(casablanca.some((l) => l.startsWith("RDATE:")) && !casablanca.some((l) => l.startsWith("RRULE")));
});
