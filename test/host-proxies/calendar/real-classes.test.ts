/**
 * The classes of real-world calendar writing, each on a real file from a parser test suite
 * (test/fixtures/ical-corpus, provenance there), with hand-checked expectations: what the file
 * says and what Google/Outlook/Apple show for it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { CalendarEvent, CalendarWarning } from "../../../host-proxies/calendar/index.js";
import { fixturePath, ms, window } from "./_fixtures.js";

const backend = new IcsFileBackend(fixturePath("ical-corpus"));

async function list(file: string, from: string, to: string): Promise<{ events: CalendarEvent[]; warnings: CalendarWarning[] }> {
  const warnings: CalendarWarning[] = [];
  const events = await backend.listEvents(window(file, from, to, { maxResults: 10_000 }), { onWarning: (w) => warnings.push(w) });
  return { events, warnings };
}

const uidOf = (e: CalendarEvent) => e.recurringEventId ?? e.id;

const cases: Array<{ name: string; file: string; from: string; to: string; check: (r: { events: CalendarEvent[]; warnings: CalendarWarning[] }) => void }> = [
  {
    name: "dates without VALUE=DATE are all-day dates, not dropped events",
    file: "icalendar-example", from: "2022-01-01T00:00:00Z", to: "2022-04-01T00:00:00Z",
    check: ({ events, warnings }) => {
      assert.deepEqual(events.map((e) => [e.start.date, e.allDay]), [["2022-01-01", true], ["2022-01-07", true], ["2022-03-08", true]]);
      assert.deepEqual(warnings, []);
    },
  },
  {
    name: "a DATE DTSTART without VALUE=DATE and DURATION instead of DTEND",
    file: "node-ical-test_date_duration", from: "2024-01-01T00:00:00Z", to: "2024-12-31T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => [e.start.date, e.end.date]), [["2024-02-15", "2024-02-22"]]),
  },
  {
    // Its one series ends (UNTIL 2021) before it starts and its DTSTART is EXDATEd: nothing to list, nothing unread.
    name: "an Outlook city-list TZID (`Amsterdam, Belgrade, Berlin, …`) resolves: no warning (control: the next-but-one file warns)",
    file: "node-ical-test_with_tz_list", from: "2024-04-01T00:00:00Z", to: "2024-05-01T00:00:00Z",
    check: ({ events, warnings }) => {
      assert.deepEqual(events, []);
      assert.deepEqual(warnings, []);
    },
  },
  {
    name: "unreadable EXDATEs do not remove the series (every biweekly occurrence through 2020 listed)",
    file: "node-ical-biweekly-exdate-until", from: "2017-08-01T00:00:00Z", to: "2021-01-01T00:00:00Z",
    check: ({ events }) => assert.equal(events.filter((e) => uidOf(e) === "1234567-ABCD-ABCD-ABCD-123456789012").length, 178),
  },
  {
    name: "an empty RDATE is dropped with a warning naming the UID; the event stays",
    file: "icalendar-issue_1081_empty_rdate", from: "2025-01-01T00:00:00Z", to: "2025-01-02T00:00:00Z",
    check: ({ events, warnings }) => {
      assert.deepEqual(events.map((e) => [e.id, e.start.dateTime]), [["test-123", "2025-01-01T10:00:00Z"]]);
      assert.deepEqual(warnings.map((w) => [w.uid, /empty RDATE/.test(w.reason)]), [["test-123", true]]);
    },
  },
  {
    name: "RDATE;VALUE=PERIOD is an occurrence with its own end, in the file's own VTIMEZONE",
    file: "icalendar-period_with_timezone", from: "2023-12-01T00:00:00Z", to: "2024-01-01T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => [e.start.dateTime, e.end.dateTime]), [["2023-12-13T12:00:00-08:00", "2023-12-13T15:00:00-08:00"]]),
  },
  {
    name: "a bare VEVENT file (no VCALENDAR) is read: DTSTART and its RDATE period",
    file: "icalendar-issue_156_RDATE_with_PERIOD", from: "1996-12-01T00:00:00Z", to: "1997-02-01T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => e.start.dateTime), ["1996-12-30T02:00:00Z", "1997-01-01T18:00:00Z"]),
  },
  {
    name: "several VCALENDARs in one file: each event is read, and one without DTSTART is a warning, not a silence",
    file: "icalendar-issue_1050_multiple_calendars", from: "2000-01-01T00:00:00Z", to: "2030-01-01T00:00:00Z",
    check: ({ warnings }) => assert.deepEqual(warnings.map((w) => w.uid).sort(), ["event1@example.com", "event2@example.com"]),
  },
  {
    name: "several versions of one UID: the highest SEQUENCE wins, for masters and for overrides",
    file: "node-ical-duplicate-uid-sequence", from: "2024-01-01T00:00:00Z", to: "2024-02-01T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => e.summary), ["Team Meeting (SEQUENCE 2)", "Updated version (SEQUENCE 3) - should win"]),
  },
  {
    name: "two overrides of one occurrence: the one with the higher SEQUENCE is listed",
    file: "node-ical-recurrence-sequence", from: "2024-01-02T00:00:00Z", to: "2024-01-03T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => e.start.dateTime), ["2024-01-02T14:00:00Z"]),
  },
  {
    name: "a moved all-day occurrence (Outlook's midnight RECURRENCE-ID) is listed once, at its new date",
    file: "node-ical-exchange_whole_day_moved_recurrence", from: "2026-02-25T00:00:00Z", to: "2026-03-01T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => e.start.date), ["2026-02-27"]),
  },
  {
    name: "Outlook display-name TZIDs map to IANA: (UTC-05:00) Eastern Time, (UTC+07:00) Bangkok, (GMT+10:00) Canberra",
    file: "node-ical-Office-2012-owa", from: "2020-10-28T00:00:00Z", to: "2020-10-29T00:00:00Z",
    check: ({ events, warnings }) => {
      const eastern = events.find((e) => e.start.timeZone === "America/New_York");
      assert.equal(ms(eastern?.start.dateTime), Date.parse("2020-10-28T17:30:00Z"));
      assert.ok(events.some((e) => e.start.timeZone === "Australia/Sydney"));
      assert.deepEqual(warnings, []);
    },
  },
  {
    name: "`(UTC-05:00) Eastern Time (US and Canada)` is New York with DST (July: -04:00)",
    file: "node-ical-windows-quoted-tz-rrule", from: "2015-07-06T00:00:00Z", to: "2015-07-07T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => e.start.dateTime), ["2015-07-06T12:00:00-04:00"]),
  },
  {
    name: "a TZID that names no zone is a warning naming the UID, never silently UTC",
    file: "node-ical-bad_custom_ms_tz", from: "2000-01-01T00:00:00Z", to: "2030-01-01T00:00:00Z",
    check: ({ warnings }) => assert.ok(warnings.some((w) => w.uid === "1173422081SZR322" && /tzone:\/\/Microsoft\/Custom.*floating/.test(w.reason)), JSON.stringify(warnings)),
  },
  {
    name: "an offset-only TZID `(GMT +01:00)` is read at that offset, with a warning that DST is not applied",
    file: "node-ical-music-school-weekly-until", from: "2022-10-04T00:00:00Z", to: "2022-10-05T00:00:00Z",
    check: ({ events, warnings }) => {
      assert.deepEqual(events.map((e) => e.start.dateTime), ["2022-10-04T14:00:00+01:00"]);
      assert.ok(warnings.some((w) => w.uid === "0000021" && /only an offset.*without daylight saving/.test(w.reason)), JSON.stringify(warnings));
    },
  },
  {
    name: "a local UNTIL under a zoned DTSTART is read in that zone: the last day is listed",
    file: "node-ical-non-utc-until-ny", from: "2024-03-15T00:00:00Z", to: "2024-03-16T00:00:00Z",
    check: ({ events }) => assert.deepEqual(events.map((e) => e.start.dateTime), ["2024-03-15T14:00:00-04:00"]),
  },
];

for (const c of cases) test(c.name, async () => c.check(await list(c.file, c.from, c.to)));

test("several VCALENDARs with several events each (concatenated feeds): every event is listed", async (t) => {
  const { tempDir } = await import("./_fixtures.js");
  const { writeFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const dir = await tempDir(t);
  const event = (uid: string, day: string) => ["BEGIN:VEVENT", `UID:${uid}`, `DTSTART:202601${day}T090000Z`, `DTEND:202601${day}T100000Z`, `SUMMARY:${uid}`, "END:VEVENT"];
  const calendar = (...events: string[][]) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//feed//EN", ...events.flat(), "END:VCALENDAR"];
  await writeFile(join(dir, "feeds.ics"), [...calendar(event("a", "05"), event("b", "06"), event("c", "07")), ...calendar(event("d", "08"), event("e", "09"))].join("\r\n") + "\r\n");
  const events = await new IcsFileBackend(dir).listEvents(window("feeds", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"));
  assert.deepEqual(events.map((e) => e.summary), ["a", "b", "c", "d", "e"]);
});
