/**
 * The .ics reader on small files made for one case each: overrides that move across the
 * window, recurrence ids in another zone, zones a file does not define, floating times,
 * broken lines and files, dense series, files without UIDs.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { IcsFileBackendOptions } from "../../../host-proxies/calendar/index.js";
import { ms, rejectsWith, tempDir, window } from "./_fixtures.js";

/** A backend over one calendar `c` holding `lines` (VCALENDAR added around them). */
async function calendar(t: TestContext, lines: string[], options: IcsFileBackendOptions & { header?: string[] } = {}) {
  const dir = await tempDir(t);
  await writeFile(join(dir, "c.ics"), ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...(options.header ?? []), ...lines, "END:VCALENDAR", ""].join("\r\n"));
  const notes: string[] = [];
  return { backend: new IcsFileBackend(dir, { ...options, onNote: (_id, note) => notes.push(note) }), notes, dir };
}

const vevent = (...props: string[]) => ["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z", ...props, "END:VEVENT"];
const utc = (text: string | undefined) => new Date(ms(text)).toISOString().replace(".000Z", "Z");

const DAILY = vevent("UID:daily", "SUMMARY:daily", "DTSTART:20260105T090000Z", "DTEND:20260105T093000Z", "RRULE:FREQ=DAILY;COUNT=10");

test("an override moved into the window from after it is listed; its old slot is not", async (t) => {
  const { backend } = await calendar(t, [...DAILY, ...vevent("UID:daily", "SUMMARY:moved in", "RECURRENCE-ID:20260112T090000Z", "DTSTART:20260106T120000Z", "DTEND:20260106T130000Z")]);
  const listed = await backend.listEvents(window("c", "2026-01-06T00:00:00Z", "2026-01-07T00:00:00Z"));
  assert.deepEqual(listed.map((e) => [e.summary, utc(e.start.dateTime), e.id]), [["daily", "2026-01-06T09:00:00Z", "daily_20260106T090000Z"], ["moved in", "2026-01-06T12:00:00Z", "daily_20260112T090000Z"]]);
  const later = await backend.listEvents(window("c", "2026-01-12T00:00:00Z", "2026-01-13T00:00:00Z"));
  assert.deepEqual(later, [], "the 12th's occurrence moved away");
});

test("an override of an EXDATE'd occurrence stays deleted; control: without the EXDATE it is listed", async (t) => {
  const override = vevent("UID:daily", "SUMMARY:override", "RECURRENCE-ID:20260107T090000Z", "DTSTART:20260107T100000Z", "DTEND:20260107T110000Z");
  const withExdate = DAILY.map((l) => (l.startsWith("RRULE") ? `${l}\r\nEXDATE:20260107T090000Z` : l));
  const jan7 = window("c", "2026-01-07T00:00:00Z", "2026-01-08T00:00:00Z");
  const deleted = await calendar(t, [...withExdate, ...override]);
  assert.deepEqual(await deleted.backend.listEvents(jan7), []);
  const kept = await calendar(t, [...DAILY, ...override]);
  assert.deepEqual((await kept.backend.listEvents(jan7)).map((e) => e.summary), ["override"]);
});

test("a RECURRENCE-ID in UTC overrides the occurrence of a series kept in a zone", async (t) => {
  const { backend } = await calendar(t, [
    ...vevent("UID:z", "SUMMARY:zoned", "DTSTART;TZID=Europe/Zurich:20260105T090000", "DTEND;TZID=Europe/Zurich:20260105T100000", "RRULE:FREQ=WEEKLY;COUNT=3"),
    ...vevent("UID:z", "SUMMARY:renamed", "RECURRENCE-ID:20260112T080000Z", "DTSTART;TZID=Europe/Zurich:20260112T090000", "DTEND;TZID=Europe/Zurich:20260112T100000"),
  ]);
  const listed = await backend.listEvents(window("c", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"));
  assert.deepEqual(listed.map((e) => e.summary), ["zoned", "renamed", "zoned"]);
});

test("a TZID the file does not define: IANA from the database, Windows via CLDR, unknown read in the calendar's zone with a note", async (t) => {
  const { backend, notes } = await calendar(t, [
    ...vevent("UID:a", "SUMMARY:iana", "DTSTART;TZID=Asia/Tokyo:20260105T090000", "DTEND;TZID=Asia/Tokyo:20260105T100000"),
    ...vevent("UID:b", "SUMMARY:windows", "DTSTART;TZID=Tokyo Standard Time:20260105T090000", "DTEND;TZID=Tokyo Standard Time:20260105T100000"),
    ...vevent("UID:c", "SUMMARY:unknown", "DTSTART;TZID=Somewhere Else:20260105T090000", "DTEND;TZID=Somewhere Else:20260105T100000"),
  ], { header: ["X-WR-TIMEZONE:America/New_York"] });
  const listed = await backend.listEvents(window("c", "2026-01-04T00:00:00Z", "2026-01-07T00:00:00Z"));
  assert.deepEqual(listed.map((e) => [e.summary, e.start.dateTime, e.start.timeZone]), [
    ["iana", "2026-01-05T09:00:00+09:00", "Asia/Tokyo"],
    ["windows", "2026-01-05T09:00:00+09:00", "Asia/Tokyo"],
    ["unknown", "2026-01-05T09:00:00-05:00", "America/New_York"],
  ]);
  assert.deepEqual(notes, ['event "c": TZID "Somewhere Else" has no VTIMEZONE and names no known zone: its times are read as floating, in America/New_York, and may be hours off']);
});

test("floating times and all-day dates are placed in X-WR-TIMEZONE, else in the backend's zone", async (t) => {
  const lines = [...vevent("UID:f", "SUMMARY:floating", "DTSTART:20260105T090000", "DURATION:PT45M")];
  const withHeader = await calendar(t, lines, { header: ["X-WR-TIMEZONE:Europe/Zurich"] });
  const [a] = await withHeader.backend.listEvents(window("c", "2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z"));
  assert.deepEqual([a?.start.dateTime, a?.end.dateTime], ["2026-01-05T09:00:00+01:00", "2026-01-05T09:45:00+01:00"], "DURATION gives the end");
  const withOption = await calendar(t, lines, { timeZone: "America/Los_Angeles" });
  const [b] = await withOption.backend.listEvents(window("c", "2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z"));
  assert.equal(b?.start.dateTime, "2026-01-05T09:00:00-08:00");
});

test("a line ical.js cannot read is dropped, an event without DTSTART skipped, each with a note; the rest lists", async (t) => {
  const { backend, notes } = await calendar(t, [
    ...vevent("UID:r", "SUMMARY:kept", "DTSTART:20260105T090000Z", "DTEND:20260105T100000Z", "RRULE:FREQ=SOMETIMES;COUNT=x"),
    ...vevent("UID:bad", "SUMMARY:no start", "RRULE:FREQ=DAILY"),
  ]);
  const listed = await backend.listEvents(window("c", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"));
  assert.deepEqual(listed.map((e) => e.summary), ["kept"]);
  assert.deepEqual(notes, [
    'event "r": dropped "RRULE:FREQ=SOMETIMES;COUNT=x": invalid frequency "SOMETIMES" expected: "SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY, YEARLY"',
    'event "bad": skipped, not listed: it has no DTSTART',
  ]);
});

test("a series denser than the cap is refused by name; control: a higher cap lists it", async (t) => {
  const lines = vevent("UID:dense", "DTSTART:20260101T000000Z", "DURATION:PT1S", "RRULE:FREQ=MINUTELY");
  const capped = await calendar(t, lines, { maxOccurrencesPerSeries: 1000 });
  await rejectsWith(capped.backend.listEvents(window("c", "2026-01-02T00:00:00Z", "2026-01-02T00:05:00Z")), { tag: "io", message: '"dense" recurs more than 1000 times' });
  const roomy = await calendar(t, lines, { maxOccurrencesPerSeries: 5000 });
  assert.equal((await roomy.backend.listEvents(window("c", "2026-01-02T00:00:00Z", "2026-01-02T00:05:00Z"))).length, 5);
});

test("an event without UID gets a stable id; several VCALENDARs in one file are read as one", async (t) => {
  const dir = await tempDir(t);
  const one = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x", ...vevent("SUMMARY:no uid", "DTSTART:20260105T090000Z", "DTEND:20260105T100000Z"), "END:VCALENDAR"];
  const two = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:y", ...vevent("UID:second", "SUMMARY:second", "DTSTART:20260106T090000Z", "DTEND:20260106T100000Z"), "END:VCALENDAR"];
  await writeFile(join(dir, "c.ics"), [...one, ...two, ""].join("\r\n"));
  const backend = new IcsFileBackend(dir);
  const first = await backend.listEvents(window("c", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"));
  const again = await backend.listEvents(window("c", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"));
  assert.deepEqual(first.map((e) => e.summary), ["no uid", "second"]);
  assert.match(first[0]?.id ?? "", /^nouid-[0-9a-f]{24}$/);
  assert.equal(first[0]?.id, again[0]?.id);
});

test("a file that is not iCalendar, or is too big, is an io error; a missing one is not-found", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "junk.ics"), "<html>not a calendar</html>\n");
  await writeFile(join(dir, "big.ics"), ["BEGIN:VCALENDAR", "X-PAD:" + "x".repeat(2000), "END:VCALENDAR", ""].join("\r\n"));
  const backend = new IcsFileBackend(dir, { maxFileBytes: 1000 });
  const jan = ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"] as const;
  await rejectsWith(backend.listEvents(window("junk", ...jan)), { tag: "io", message: "not" });
  await rejectsWith(backend.listEvents(window("big", ...jan)), { tag: "io", message: "over the 1000-byte limit" });
  await rejectsWith(backend.listEvents(window("gone", ...jan)), { tag: "not-found" });
  assert.deepEqual(await new IcsFileBackend(dir).listEvents(window("big", ...jan)), [], "control: under the default cap");
});

test("a line folded inside a UTF-8 character (RFC 5545 folds octets) decodes whole", async (t) => {
  const dir = await tempDir(t);
  const head = Buffer.from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:u\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260105T090000Z\r\nSUMMARY:Z", "utf8");
  const u = Buffer.from("ü", "utf8");
  const tail = Buffer.from("rich\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", "utf8");
  // The fold (CRLF + space) falls between the two bytes of "ü".
  await writeFile(join(dir, "c.ics"), Buffer.concat([head, u.subarray(0, 1), Buffer.from("\r\n "), u.subarray(1), tail]));
  const [event] = await new IcsFileBackend(dir).listEvents(window("c", "2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z"));
  assert.equal(event?.summary, "Zürich");
});
