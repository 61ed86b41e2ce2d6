/**
 * `IcsFileBackend.addEvent`: what it writes is read back equal by a second, independent parser
 * (node-ical, which does not share ical.js's code), folded to 75 octets, appended without
 * touching the rest of the file, replaced atomically and one add at a time.
 */
import assert from "node:assert/strict";
import { readdir, readFile, stat, writeFile, chmod } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import ical from "node-ical";
import type { VEvent } from "node-ical";
import { IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import { icalCopy, ms, newEvent, rejectsWith, tempDir, window } from "./_fixtures.js";

const CLOCK = () => new Date("2026-01-02T03:04:05Z");

function backendIn(dir: string) {
  let n = 0;
  return new IcsFileBackend(dir, { clock: CLOCK, newUid: () => `uid-${++n}@test` });
}

function eventsOf(text: string): VEvent[] {
  return Object.values(ical.sync.parseICS(text)).filter((c): c is VEvent => c?.type === "VEVENT");
}

function addresses(attendee: VEvent["attendee"]): string[] {
  const list = attendee === undefined ? [] : Array.isArray(attendee) ? attendee : [attendee];
  return list.map((a) => (typeof a === "string" ? a : a.val).replace(/^mailto:/i, ""));
}

const TRICKY = "Line one, with commas; semicolons \\ a backslash\nLine two: naïve café — 日本語 🎉\n\nLine four";

test("addEvent: node-ical reads back summary, zoned times, location, description and attendees", async (t) => {
  const dir = await tempDir(t);
  const backend = backendIn(dir);
  const added = await backend.addEvent(newEvent({
    summary: "Quarterly review, Zürich; room 4", location: "Bahnhofstrasse 1, 8001 Zürich", description: TRICKY,
    start: { dateTime: "2026-07-15T09:00:00", timeZone: "Europe/Zurich" }, end: { dateTime: "2026-07-15T10:15:00", timeZone: "Europe/Zurich" },
    attendees: ["ana@example.com", "bo.li+cal@example.org"],
  }));
  const [read] = eventsOf(await readFile(join(dir, "primary.ics"), "utf8"));
  assert.ok(read !== undefined);
  assert.equal(read.uid, "uid-1@test");
  assert.equal(read.summary, "Quarterly review, Zürich; room 4");
  assert.equal(read.location, "Bahnhofstrasse 1, 8001 Zürich");
  assert.equal(read.description, TRICKY);
  assert.equal(read.start.toISOString(), "2026-07-15T07:00:00.000Z", "09:00 Zurich summer time is 07:00Z");
  assert.equal(read.end?.toISOString(), "2026-07-15T08:15:00.000Z");
  assert.equal(read.start.tz, "Europe/Zurich");
  assert.deepEqual(addresses(read.attendee), ["ana@example.com", "bo.li+cal@example.org"]);
  assert.equal(ms(added.start.dateTime), read.start.getTime(), "what addEvent returned is what node-ical reads");
});

test("addEvent: a UTC event and an all-day event read back with node-ical too", async (t) => {
  const dir = await tempDir(t);
  const backend = backendIn(dir);
  await backend.addEvent(newEvent({ summary: "call", start: { dateTime: "2026-01-20T15:00:00Z" }, end: { dateTime: "2026-01-20T15:30:00Z" } }));
  await backend.addEvent(newEvent({ summary: "holiday", start: { date: "2026-12-24" }, end: { date: "2026-12-27" } }));
  const [call, holiday] = eventsOf(await readFile(join(dir, "primary.ics"), "utf8"));
  assert.deepEqual([call?.summary, call?.start.toISOString(), call?.end?.toISOString()], ["call", "2026-01-20T15:00:00.000Z", "2026-01-20T15:30:00.000Z"]);
  assert.equal(holiday?.datetype, "date");
  assert.equal(holiday?.start.dateOnly, true);
  // node-ical builds date-only values at local midnight.
  const day = (d: Date | undefined) => (d === undefined ? "" : `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`);
  assert.deepEqual([day(holiday?.start), day(holiday?.end)], ["2026-12-24", "2026-12-27"]);
});

test("addEvent: lines are folded at 75 octets without splitting a UTF-8 character", async (t) => {
  const dir = await tempDir(t);
  const description = "Zürich ".repeat(30) + "日本語のテキスト".repeat(20) + " 🎉🎉🎉".repeat(20);
  await backendIn(dir).addEvent(newEvent({ description, start: { dateTime: "2026-01-20T15:00:00Z" }, end: { dateTime: "2026-01-20T16:00:00Z" } }));
  const bytes = await readFile(join(dir, "primary.ics"));
  const lines = bytes.toString("latin1").split("\r\n");
  assert.ok(lines.length > 20);
  for (const line of lines) {
    assert.ok(line.length <= 75, `${line.length} octets: ${line.slice(0, 30)}`);
    assert.ok(!Buffer.from(line, "latin1").toString("utf8").includes("\uFFFD"), "each physical line is whole UTF-8");
  }
  assert.equal(eventsOf(bytes.toString("utf8"))[0]?.description, description, "control: unfolded it is the same text");
});

test("addEvent: appends before END:VCALENDAR, keeping the file's bytes and its CRLF line ends", async (t) => {
  const dir = await icalCopy(t);
  const path = join(dir, "thunderbird-vtimezone-valarm.ics");
  const before = await readFile(path);
  const backend = backendIn(dir);
  const added = await backend.addEvent(newEvent({ calendarId: "thunderbird-vtimezone-valarm", summary: "tea", start: { dateTime: "2024-10-24T16:00:00", timeZone: "Europe/London" }, end: { dateTime: "2024-10-24T16:30:00", timeZone: "Europe/London" } }));
  const after = await readFile(path);
  const head = before.subarray(0, before.length - "END:VCALENDAR\r\n".length);
  assert.ok(after.subarray(0, head.length).equals(head), "everything before END:VCALENDAR is unchanged");
  assert.ok(after.toString("latin1").endsWith("END:VEVENT\r\nEND:VCALENDAR\r\n"));
  assert.ok(!/[^\r]\n/.test(after.toString("latin1")), "CRLF throughout, as the file had");
  assert.equal((after.toString("latin1").match(/BEGIN:VTIMEZONE/g) ?? []).length, 1, "the file's own Europe/London is reused");
  const listed = await backend.listEvents(window("thunderbird-vtimezone-valarm", "2024-10-01T00:00:00Z", "2024-11-01T00:00:00Z"));
  assert.deepEqual(listed.map((e) => e.summary), ["event with alarms", "tea"]);
  assert.deepEqual(listed[1], added);
  assert.equal(added.start.dateTime, "2024-10-24T16:00:00+01:00");
});

test("addEvent: an LF file stays LF; a zone the file lacks gets one VTIMEZONE, written once", async (t) => {
  const dir = await icalCopy(t);
  const path = join(dir, "zimbra-recur-instances.ics");
  const backend = backendIn(dir);
  const zurich = (day: number) => newEvent({ calendarId: "zimbra-recur-instances", start: { dateTime: `2026-03-${day}T09:00:00`, timeZone: "Europe/Zurich" }, end: { dateTime: `2026-03-${day}T10:00:00`, timeZone: "Europe/Zurich" } });
  await backend.addEvent(zurich(27));
  await backend.addEvent(zurich(30));
  const text = await readFile(path, "latin1");
  assert.ok(!text.includes("\r"), "LF, as the file had");
  assert.equal((text.match(/TZID:Europe\/Zurich/g) ?? []).length, 1);
  assert.match(text, /BEGIN:DAYLIGHT\nDTSTART:20250330T020000\nTZOFFSETFROM:\+0100\nTZOFFSETTO:\+0200\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\nEND:DAYLIGHT/);
  const listed = await backend.listEvents(window("zimbra-recur-instances", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"));
  assert.deepEqual(listed.map((e) => [e.summary, e.start.dateTime]), [
    ["Crazy Event Thingy!", "2026-03-03T10:00:00-08:00"], // the file's own series, still monthly
    ["Planning", "2026-03-27T09:00:00+01:00"],
    ["Planning", "2026-03-30T09:00:00+02:00"],
  ]);
  const [first, second] = eventsOf(text).filter((e) => e.uid.startsWith("uid-"));
  assert.deepEqual([first?.start.toISOString(), second?.start.toISOString()], ["2026-03-27T08:00:00.000Z", "2026-03-30T07:00:00.000Z"], "node-ical agrees");
});

test("addEvent: a file without a final newline keeps ending without one (Meetup, Exchange, Sixt)", async (t) => {
  const dir = await icalCopy(t);
  const backend = backendIn(dir);
  for (const id of ["meetup-folded-description", "exchange2010-ms-timezones", "sixt-french-unfolded"]) {
    await backend.addEvent(newEvent({ calendarId: id, summary: `added to ${id}`, start: { date: "2026-05-04" }, end: { date: "2026-05-05" } }));
    const text = await readFile(join(dir, `${id}.ics`), "latin1");
    assert.ok(text.endsWith("END:VEVENT\nEND:VCALENDAR") || text.endsWith("END:VEVENT\r\nEND:VCALENDAR"), id);
    const listed = await backend.listEvents(window(id, "2026-05-04T00:00:00Z", "2026-05-05T00:00:00Z", { query: "added" }));
    assert.deepEqual(listed.map((e) => e.summary), [`added to ${id}`]);
  }
});

test("addEvent: refuses when the file's own VTIMEZONE disagrees with the IANA database, and writes nothing", async (t) => {
  const dir = await tempDir(t);
  const bogus = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VTIMEZONE", "TZID:Europe/Zurich", "BEGIN:STANDARD", "DTSTART:16010101T000000",
    "TZOFFSETFROM:+0500", "TZOFFSETTO:+0500", "END:STANDARD", "END:VTIMEZONE", "END:VCALENDAR", ""].join("\r\n");
  await writeFile(join(dir, "primary.ics"), bogus);
  const backend = backendIn(dir);
  const at = (zone?: string) => newEvent({ start: { dateTime: "2026-07-15T09:00:00+02:00", timeZone: zone }, end: { dateTime: "2026-07-15T10:00:00+02:00", timeZone: zone } });
  await rejectsWith(backend.addEvent(at("Europe/Zurich")), { tag: "invalid-input", message: "VTIMEZONE for Europe/Zurich disagrees" });
  assert.equal(await readFile(join(dir, "primary.ics"), "utf8"), bogus);
  const control = await backend.addEvent(at(undefined));
  assert.deepEqual(control.start, { dateTime: "2026-07-15T07:00:00Z" }, "control: the same event in UTC is written");
});

test("addEvent: concurrent adds to one calendar all land; no temp file is left behind", async (t) => {
  const dir = await tempDir(t);
  const backend = backendIn(dir);
  await Promise.all(Array.from({ length: 20 }, (_, i) => backend.addEvent(newEvent({ summary: `event ${i}`, start: { date: "2026-02-02" }, end: { date: "2026-02-03" } }))));
  const listed = await backend.listEvents(window("primary", "2026-02-01T00:00:00Z", "2026-02-04T00:00:00Z"));
  assert.equal(listed.length, 20);
  assert.equal(new Set(listed.map((e) => e.summary)).size, 20);
  assert.deepEqual(await readdir(dir), ["primary.ics"]);
});

test("addEvent: creates primary (owner-only) on first use, keeps an existing file's mode", async (t) => {
  const dir = join(await tempDir(t), "not-yet");
  const backend = backendIn(dir);
  assert.deepEqual(await backend.listEvents(window("primary", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")), [], "an empty primary before the first add");
  await backend.addEvent(newEvent({ start: { date: "2026-01-05" }, end: { date: "2026-01-06" } }));
  assert.equal((await stat(join(dir, "primary.ics"))).mode & 0o777, 0o600);
  await chmod(join(dir, "primary.ics"), 0o640);
  await backend.addEvent(newEvent({ start: { date: "2026-01-06" }, end: { date: "2026-01-07" } }));
  assert.equal((await stat(join(dir, "primary.ics"))).mode & 0o777, 0o640);
  const text = await readFile(join(dir, "primary.ics"), "utf8");
  assert.match(text, /^BEGIN:VCALENDAR\r\nVERSION:2\.0\r\nPRODID:/);
  assert.match(text, /DTSTAMP:20260102T030405Z/, "stamped by the injected clock");
});

test("addEvent: a calendar other than primary must exist; an unreadable one is not written to", async (t) => {
  const dir = await tempDir(t);
  const backend = backendIn(dir);
  const event = (calendarId: string) => newEvent({ calendarId, start: { date: "2026-01-05" }, end: { date: "2026-01-06" } });
  await rejectsWith(backend.addEvent(event("team")), { tag: "not-found", message: "no team.ics" });
  await writeFile(join(dir, "broken.ics"), "this is not iCalendar\n");
  await rejectsWith(backend.addEvent(event("broken")), { tag: "io" });
  assert.equal(await readFile(join(dir, "broken.ics"), "utf8"), "this is not iCalendar\n");
  await writeFile(join(dir, "team.ics"), "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:x\nEND:VCALENDAR\n");
  assert.equal((await backend.addEvent(event("team"))).calendarId, "team", "control: once the file exists");
});
