/**
 * Calendars as real programs export them, one class per row, on real files
 * (test/fixtures/ical-corpus, provenance there) and on small files written here where a class
 * needs a shape no public file shows alone. Each refusal or warning has a passing control beside
 * it: a file's own VTIMEZONE that disagrees with the IANA zone of its name (warned) beside one
 * that agrees (silent); text outside the calendar; UID-less events; February 29th and the 31st
 * in rules; RFC 7529 RSCALE; shapes that made ical.js throw a TypeError.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { CalendarEvent, CalendarWarning } from "../../../host-proxies/calendar/index.js";
import { fixturePath, tempDir, window } from "./_fixtures.js";

interface Listing {
  events: CalendarEvent[];
  warnings: CalendarWarning[];
}

async function list(dir: string, id: string, from: string, to: string): Promise<Listing> {
  const warnings: CalendarWarning[] = [];
  const events = await new IcsFileBackend(dir).listEvents(window(id, from, to, { maxResults: 10_000 }), { onWarning: (w) => warnings.push(w) });
  return { events, warnings };
}

const corpus = (file: string, from: string, to: string) => list(fixturePath("ical-corpus"), file, from, to);
const startOf = (e: CalendarEvent) => e.start.date ?? e.start.dateTime;
const reasons = (l: Listing) => l.warnings.map((w) => w.reason);
/** No engine error's words reach a caller: a warning says what in the file could not be read. */
const NO_ENGINE_ERROR = /TypeError|Cannot read|undefined|null|is not a function/;

const FILE_ROWS: Array<{ name: string; file: string; from: string; to: string; check: (l: Listing) => void | Promise<void> }> = [
  {
    name: "DAVx5 (ical4j): a `Europe/Berlin` VTIMEZONE of +01:00 all year is read as written, 12:20+01:00, and warned (IANA has +02:00 in September)",
    file: "ical4j-bitfire1", from: "2025-09-01T00:00:00Z", to: "2025-10-01T00:00:00Z",
    check: (l) => {
      assert.deepEqual(l.events.map((e) => [e.start, e.end]), [[{ dateTime: "2025-09-17T12:20:00+01:00", timeZone: "Europe/Berlin" }, { dateTime: "2025-09-17T12:45:00+01:00", timeZone: "Europe/Berlin" }]]);
      assert.equal(l.warnings.length, 1);
      assert.equal(l.warnings[0]?.uid, "3b3c1b0e-e74c-48ef-ada8-33afc543648d");
      assert.match(l.warnings[0]?.reason ?? "", /^TZID "Europe\/Berlin": the file's own VTIMEZONE puts 2025-09-17T12:20:00 at UTC\+01:00 \(2025-09-17T11:20:00Z\), the IANA zone Europe\/Berlin at UTC\+02:00 \(2025-09-17T10:20:00Z\)/);
    },
  },
  {
    name: "Apple iCal 1.0: `America/Anchorage` with the pre-2007 US rules puts 2007-03-20 15:07 at -09:00 (as written), warned (IANA: -08:00 since March 11th)",
    file: "ical4j-Earth32Seasons", from: "2007-03-01T00:00:00Z", to: "2007-04-01T00:00:00Z",
    check: (l) => {
      assert.deepEqual(l.events.map((e) => [e.summary, e.start]), [["Vernal Equinox", { dateTime: "2007-03-20T15:07:00-09:00", timeZone: "America/Anchorage" }]]);
      assert.equal(l.warnings.length, 1);
      assert.match(l.warnings[0]?.reason ?? "", /^TZID "America\/Anchorage": .* at UTC-09:00 \(2007-03-21T00:07:00Z\), the IANA zone America\/Anchorage at UTC-08:00 \(2007-03-20T23:07:00Z\).* 1 h apart/);
    },
  },
  {
    name: "control: Apple iCal 3.0's truncated `America/New_York` agrees with IANA in April 2007: listed as written, no warning",
    file: "ccs-calendarserver-TruncatedApr01", from: "2007-03-01T00:00:00Z", to: "2007-05-01T00:00:00Z",
    check: (l) => {
      assert.deepEqual(l.events.map((e) => e.start), [{ dateTime: "2007-04-01T12:00:00-04:00", timeZone: "America/New_York" }]);
      assert.deepEqual(l.warnings, []);
    },
  },
  {
    name: "a private TZID (`/Europe/CUSTOM`) is read by its own rules, 20:00 in the file's summer and winter offsets",
    file: "icalendar-issue_466_respect_unique_timezone", from: "2022-10-20T00:00:00Z", to: "2022-11-06T00:00:00Z",
    check: (l) => {
      assert.deepEqual(l.events.map((e) => e.start.dateTime), ["2022-10-21T20:00:00+02:00", "2022-10-28T20:00:00+02:00", "2022-11-04T20:00:00+01:00"]);
      assert.deepEqual(l.warnings, []);
    },
  },
  {
    name: "Podio: `X-COMMENT:Cached from …` after END:VCALENDAR is dropped with a warning; the event lists",
    file: "icalendar-issue_350", from: "2022-02-01T00:00:00Z", to: "2022-03-01T00:00:00Z",
    check: (l) => {
      assert.deepEqual(l.events.map((e) => [e.id, e.summary, startOf(e)]), [["20055546456446", 'Termin 4353 und"so"', "2022-02-22T18:30:00Z"]]);
      assert.deepEqual(reasons(l), ['dropped "X-COMMENT:Cached from 2022-02-20 14:28:21 - new at most every 1800sec.": text after END:VCALENDAR, outside the calendar']);
    },
  },
  {
    name: "a UID-less feed (ical.net, one event stamped 1969 by its CSV converter): every event is listed once, under an id that is the same on every read",
    file: "icalnet-ProdID2", from: "1969-12-01T00:00:00Z", to: "2008-01-01T00:00:00Z",
    check: async (l) => {
      assert.equal(l.events.length, 40);
      const again = await corpus("icalnet-ProdID2", "1969-12-01T00:00:00Z", "2008-01-01T00:00:00Z");
      assert.deepEqual(again.events.map((e) => e.id), l.events.map((e) => e.id));
      assert.equal(new Set(l.events.map((e) => e.id)).size, 40, "no two events share an id");
      assert.ok(l.events.every((e) => /^nouid-[0-9a-f]{24}$/.test(e.id)), l.events[0]?.id);
    },
  },
  {
    name: "Apple iCal 1.5: a yearly birthday on February 29th occurs in leap years only (RFC 5545 §3.3.10), not on March 1st",
    file: "ical4j-mathBirthdays", from: "2004-01-01T00:00:00Z", to: "2010-01-01T00:00:00Z",
    check: (l) => {
      assert.deepEqual(l.events.filter((e) => e.summary === "1860 Herman Hollerith").map(startOf), ["2004-02-29", "2008-02-29"]);
      assert.equal(l.events.filter((e) => e.summary === "1826 Bernhard Riemann").length, 6, "control: an ordinary birthday every year");
    },
  },
  {
    name: "RFC 7529: other calendar scales are not expanded (DTSTART only, warned); RSCALE=GREGORIAN;SKIP=FORWARD moves February 29th to March 1st in common years",
    file: "icalendar-rfc_7529", from: "2012-01-01T00:00:00Z", to: "2017-01-01T00:00:00Z",
    check: (l) => {
      const byUid = (uid: string) => l.events.filter((e) => (e.recurringEventId ?? e.id) === uid).map(startOf);
      assert.deepEqual(byUid("4.3.1"), ["2013-02-10"]);
      assert.deepEqual(byUid("4.3.2"), ["2013-09-06"]);
      assert.deepEqual(byUid("4.3.3"), ["2014-02-08"]);
      assert.deepEqual(byUid("4.3.4"), ["2012-02-29", "2013-03-01", "2014-03-01", "2015-03-01", "2016-02-29"]);
      assert.deepEqual(l.warnings.map((w) => [w.uid, /calendar scale \(RFC 7529\), which this reader cannot expand/.test(w.reason)]), [["4.3.1", true], ["4.3.2", true], ["4.3.3", true], ["4.3.4", false]]);
      assert.match(l.warnings[3]?.reason ?? "", /RSCALE=GREGORIAN .*SKIP=FORWARD/);
    },
  },
];

for (const row of FILE_ROWS) {
  test(row.name, async () => {
    const listing = await corpus(row.file, row.from, row.to);
    for (const w of listing.warnings) assert.doesNotMatch(w.reason, NO_ENGINE_ERROR);
    await row.check(listing);
  });
}

const HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//clawhive//test//EN\r\n";
const END = "END:VCALENDAR\r\n";
const GOOD = "BEGIN:VEVENT\r\nUID:good@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T090000Z\r\nDTEND:20260301T100000Z\r\nSUMMARY:good\r\nEND:VEVENT\r\n";
const vevent = (lines: string) => `BEGIN:VEVENT\r\n${lines.trim().split("\n").map((l) => l.trim()).join("\r\n")}\r\nEND:VEVENT\r\n`;

async function listText(t: TestContext, text: string, from = "2020-01-01T00:00:00Z", to = "2031-01-01T00:00:00Z"): Promise<Listing> {
  const dir = await tempDir(t);
  await writeFile(join(dir, "t.ics"), text);
  return list(dir, "t", from, to);
}

// Shapes that made ical.js throw a TypeError (the whole calendar failed): each costs only
// itself, with a warning in words; the ordinary event beside it (the control) always lists.
const SHAPE_ROWS: Array<{ shape: string; text: string; warned: RegExp | undefined; odd: string[] }> = [
  { shape: "a VTIMEZONE without TZID", text: `${HEAD}BEGIN:VTIMEZONE\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n${GOOD}${END}`, warned: /^dropped the VTIMEZONE: it has no TZID/, odd: [] },
  { shape: "an empty RRULE", text: `${HEAD}${vevent("UID:odd@test\nDTSTAMP:20260101T000000Z\nDTSTART:20260302T090000Z\nRRULE:\nSUMMARY:odd")}${GOOD}${END}`, warned: /^dropped "RRULE:": an empty RRULE$/, odd: ["2026-03-02T09:00:00Z"] },
  { shape: "a DTSTART that is a PERIOD", text: `${HEAD}${vevent("UID:odd@test\nDTSTAMP:20260101T000000Z\nDTSTART;VALUE=PERIOD:20260302T090000Z/PT1H\nSUMMARY:odd")}${GOOD}${END}`, warned: /^skipped, not listed: its DTSTART is not a DATE or DATE-TIME/, odd: [] },
  { shape: "X-WR-TIMEZONE;VALUE=PERIOD", text: `${HEAD}X-WR-TIMEZONE;VALUE=PERIOD:Europe/Berlin\r\n${GOOD}${END}`, warned: undefined, odd: [] },
  { shape: "a banner before BEGIN:VCALENDAR", text: `Cached export\r\n${HEAD}${GOOD}${END}`, warned: /^dropped "Cached export": text before the first BEGIN:VCALENDAR/, odd: [] },
  { shape: "no DTEND, no DURATION (Podio)", text: `${HEAD}${vevent("UID:odd@test\nDTSTAMP:20260101T000000Z\nDTSTART:20260302T090000Z\nSUMMARY:odd")}${GOOD}${END}`, warned: undefined, odd: ["2026-03-02T09:00:00Z"] },
];

for (const row of SHAPE_ROWS) {
  test(`unexpected shape: ${row.shape} ${row.warned === undefined ? "reads" : "is warned"}; control: the ordinary event beside it lists`, async (t) => {
    const listing = await listText(t, row.text);
    assert.deepEqual(listing.events.filter((e) => e.summary === "good").map(startOf), ["2026-03-01T09:00:00Z"]);
    assert.deepEqual(listing.events.filter((e) => e.summary === "odd").map(startOf), row.odd);
    if (row.warned === undefined) assert.deepEqual(listing.warnings, []);
    else assert.deepEqual(listing.warnings.map((w) => row.warned!.test(w.reason)), [true], JSON.stringify(listing.warnings));
  });
}

const TWIN = vevent("DTSTAMP:20260101T000000Z\nDTSTART:20260305T090000Z\nSUMMARY:twin");

test("two UID-less VEVENTs that read alike are two events, never merged; the same event re-exported with a new DTSTAMP keeps its id", async (t) => {
  const twins = await listText(t, `${HEAD}${TWIN}${TWIN}${GOOD}${END}`);
  const ids = twins.events.filter((e) => e.summary === "twin").map((e) => e.id);
  assert.equal(ids.length, 2);
  assert.match(ids[0] ?? "", /^nouid-[0-9a-f]{24}$/);
  assert.equal(ids[1], `${ids[0]}-2`);
  const restamped = await listText(t, `${HEAD}${TWIN.replace("DTSTAMP:20260101T000000Z", "DTSTAMP:20260202T000000Z")}${END}`);
  assert.deepEqual(restamped.events.map((e) => e.id), [ids[0]]);
  // Control: a UID-less event that differs in what it says gets an id of its own.
  const other = await listText(t, `${HEAD}${TWIN.replace("SUMMARY:twin", "SUMMARY:other")}${END}`);
  assert.notEqual(other.events[0]?.id, ids[0]);
});

test("days some months lack: Feb 29 yearly in leap years only, BYMONTHDAY=-1 on the last day of February, the 31st monthly skips short months and COUNT counts only real dates", async (t) => {
  const text = `${HEAD}${vevent("UID:leap@test\nDTSTAMP:20260101T000000Z\nDTSTART;VALUE=DATE:20240229\nRRULE:FREQ=YEARLY\nSUMMARY:leap")}${vevent(
    "UID:last@test\nDTSTAMP:20260101T000000Z\nDTSTART;VALUE=DATE:20240229\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1\nSUMMARY:last",
  )}${vevent("UID:m31@test\nDTSTAMP:20260101T000000Z\nDTSTART:20260131T090000Z\nRRULE:FREQ=MONTHLY;COUNT=4\nSUMMARY:m31")}${END}`;
  const listing = await listText(t, text, "2024-01-01T00:00:00Z", "2029-01-01T00:00:00Z");
  const of = (summary: string) => listing.events.filter((e) => e.summary === summary).map(startOf);
  assert.deepEqual(of("leap"), ["2024-02-29", "2028-02-29"]);
  assert.deepEqual(of("last"), ["2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"]);
  assert.deepEqual(of("m31"), ["2026-01-31T09:00:00Z", "2026-03-31T09:00:00Z", "2026-05-31T09:00:00Z", "2026-07-31T09:00:00Z"]);
  assert.deepEqual(listing.warnings, []);
});
