/**
 * The .ics backend on real exports (test/fixtures/ical, see PROVENANCE.md there): recurrence
 * with RDATE/EXDATE/overrides, VTIMEZONE and IANA and Windows zones, all-day events, folding,
 * encodings, and each file's quirk with the behaviour chosen for it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CalendarEvent } from "../../../host-proxies/calendar/index.js";
import { exportsBackend, ms, window } from "./_fixtures.js";

const utc = (e: CalendarEvent | undefined) => new Date(ms(e?.start.dateTime)).toISOString().replace(".000Z", "Z");

test("Google export: a weekday-weekly all-day series expands to dates, ignoring the VALARM's ATTENDEE", async () => {
  const { backend, notes } = exportsBackend();
  const events = await backend.listEvents(window("google-allday-weekly", "2012-08-01T00:00:00Z", "2012-08-15T00:00:00Z"));
  assert.deepEqual(events.map((e) => e.start.date), ["2012-08-03", "2012-08-06", "2012-08-07", "2012-08-08", "2012-08-09", "2012-08-10", "2012-08-13", "2012-08-14"]);
  const first = events[0];
  assert.deepEqual(first, {
    id: "4pfh824gvims850j0gar361t04@google.com_20120803", calendarId: "google-allday-weekly", summary: "Day Long Event",
    description: undefined, location: undefined, start: { date: "2012-08-03" }, end: { date: "2012-08-04" }, allDay: true,
    recurringEventId: "4pfh824gvims850j0gar361t04@google.com", attendees: [], status: "confirmed",
  });
  assert.deepEqual(notes, []);
});

test("Google birthday export: the stray Z on an all-day RDATE is dropped, orphan overrides stand alone", async () => {
  const { backend } = exportsBackend();
  const december = (year: number) => backend.listEvents(window("google-birthday", `${year}-12-01T00:00:00Z`, `${year + 1}-01-01T00:00:00Z`));
  for (const year of [2012, 2013, 2014]) {
    const events = await december(year);
    // `RDATE:20131210Z` is read as the date 2013-12-10 (a date has no zone): the series (DTSTART
    // 2014-12-10, COUNT=1, two RDATEs) has one all-day occurrence each year, and each year also
    // has an override whose master is absent from the export, listed as it stands.
    assert.deepEqual(events.map((e) => [e.id, e.start, e.allDay, e.recurringEventId]), [
      [`2014_BIRTHDAY_79d389868f96182e@google.com_${year}1210`, { date: `${year}-12-10` }, true, "2014_BIRTHDAY_79d389868f96182e@google.com"],
      [`BIRTHDAY_79d389868f96182e@google.com_${year}1210`, { date: `${year}-12-10` }, true, "BIRTHDAY_79d389868f96182e@google.com"],
    ], String(year));
    assert.equal(events[1]?.description, "Today is PErson #2's birthday!");
    assert.deepEqual(events[0]?.attendees, ["4dhmurjkc5hn8sq0ctp6utbg5pr2sor1dhimsp31e8n6errfctm6abj3dtmg@virtual"], "a folded ATTENDEE, unfolded");
  }
  assert.deepEqual(await december(2015), [], "control: COUNT=1 and two RDATEs, nothing more");
});

test("Zimbra export: monthly BYDAY=1TU with RDATEs, EXDATEs and two moved occurrences", async () => {
  const { backend } = exportsBackend();
  const events = await backend.listEvents(window("zimbra-recur-instances", "2012-09-01T00:00:00Z", "2013-06-01T00:00:00Z"));
  assert.deepEqual(events.map(utc), [
    "2012-10-02T22:00:00Z", // override: moved from 10:00 to 15:00 PDT
    "2012-11-05T18:00:00Z", // RDATE (10:00 PST)
    "2012-11-07T04:00:00Z", // override: Nov 6 moved to 20:00 PST
    "2012-11-10T18:00:00Z", // RDATE
    "2013-01-01T18:00:00Z", // Dec 4 and Feb 5 are EXDATEs
    "2013-03-05T18:00:00Z",
    "2013-05-07T17:00:00Z", // Apr 2 is an EXDATE; May is PDT again
  ]);
  const moved = events[0];
  assert.equal(moved?.description, "I HAZ CHANGED!", "the override's own data");
  assert.deepEqual([moved?.start.dateTime, moved?.start.timeZone], ["2012-10-02T15:00:00-07:00", "America/Los_Angeles"]);
  assert.equal(moved?.id, "623c13c0-6c2b-45d6-a12b-c33ad61c4868_20121002T170000Z", "the id names the original occurrence");
  assert.equal(events[4]?.description, undefined, "control: an occurrence that was not overridden has the master's (no) description");
  for (const gone of ["2012-12-04", "2013-02-05", "2013-04-02"]) assert.ok(!events.some((e) => e.start.dateTime?.startsWith(gone)), gone);
  assert.ok(events.every((e) => e.recurringEventId === "623c13c0-6c2b-45d6-a12b-c33ad61c4868"));
});

test("Exchange export: Windows zone names use the file's VTIMEZONE and report the CLDR IANA zone", async () => {
  const { backend } = exportsBackend();
  const july = await backend.listEvents(window("exchange2010-ms-timezones", "2020-07-01T00:00:00Z", "2020-08-01T00:00:00Z", { query: "either" }));
  assert.deepEqual(july.map((e) => e.start.dateTime?.slice(0, 10)), [
    "2020-07-07", "2020-07-09", "2020-07-10", "2020-07-12", "2020-07-14", "2020-07-16", "2020-07-17", "2020-07-19",
    "2020-07-24", "2020-07-26", "2020-07-30", "2020-07-31", // 21, 23 and 28 are in the folded, comma-separated EXDATE
  ]);
  assert.deepEqual([july[0]?.start.dateTime, july[0]?.start.timeZone, utc(july[0])], ["2020-07-07T12:00:00-07:00", "America/Los_Angeles", "2020-07-07T19:00:00Z"]);
  const test1 = await backend.listEvents(window("exchange2010-ms-timezones", "2020-09-10T00:00:00Z", "2020-09-11T00:00:00Z", { query: "test" }));
  assert.deepEqual(test1.map((e) => [e.summary, e.start.dateTime, e.start.timeZone]), [["test", "2020-09-10T09:00:00+02:00", "Europe/Berlin"]]);
  const winter = await backend.listEvents(window("exchange2010-ms-timezones", "2020-12-01T00:00:00Z", "2020-12-02T00:00:00Z", { query: "jira" }));
  assert.equal(utc(winter[0]), "2020-12-01T08:00:00Z", "09:00 W. Europe Standard Time in winter");
});

test("Exchange export: the DTSTART whose value sits inside the TZID quotes is mended, with a note", async () => {
  const { backend, notes } = exportsBackend();
  const events = await backend.listEvents(window("exchange2010-ms-timezones", "2020-06-09T00:00:00Z", "2020-06-10T00:00:00Z"));
  assert.deepEqual(events.map((e) => [e.summary, e.start.dateTime, e.end.dateTime]), [["Log Yesterday's Jira time", "2020-06-09T09:00:00+02:00", "2020-06-09T09:30:00+02:00"]]);
  assert.deepEqual(notes.map(([id, note]) => [id, note.replace(/^event "[^"]+": /, "")]), [["exchange2010-ms-timezones", 'read "DTSTART;TZID=\\"W. Europe Standard Time:20200609T090000\\"" as "DTSTART;TZID=\\"W. Europe Standard Time\\":20200609T090000": its value was inside the quoted parameter']]);
});

test("Apple export: attendees folded mid-parameter, STATUS values, a TZID with no VTIMEZONE", async () => {
  const { backend, notes } = exportsBackend();
  const events = await backend.listEvents(window("apple-macos-attendees", "2022-07-01T00:00:00Z", "2022-07-10T00:00:00Z"));
  assert.deepEqual(events.map((e) => [e.summary, e.status, e.attendees]), [
    ["Tentative", "tentative", ["tentative@example.com"]],
    ["Confirmed", "confirmed", ["confirmed@example.com"]],
    // Listed with its status, as the export shows it: CANCELLED is a state, not a deletion.
    ["Cancelled", "cancelled", ["cancelled@example.com"]],
    ["No Status", undefined, []],
  ]);
  // America/Vancouver is used but not defined: its VTIMEZONE comes from the IANA database.
  assert.deepEqual([events[1]?.start.dateTime, events[1]?.start.timeZone, utc(events[1])], ["2022-07-05T09:00:00-07:00", "America/Vancouver", "2022-07-05T16:00:00Z"]);
  assert.deepEqual(events[0]?.start, { dateTime: "2022-07-04T23:00:00Z" }, "control: a UTC time has no zone");
  assert.deepEqual(notes, []);
});

test("Thunderbird export: CRLF, an 85-block VTIMEZONE with six-digit offsets, VALARM text kept out", async () => {
  const { backend } = exportsBackend();
  const events = await backend.listEvents(window("thunderbird-vtimezone-valarm", "2024-10-01T00:00:00Z", "2024-11-01T00:00:00Z"));
  assert.deepEqual(events.map((e) => [e.summary, e.start.dateTime, e.start.timeZone, utc(e), e.description]), [
    ["event with alarms", "2024-10-23T15:00:00+01:00", "Europe/London", "2024-10-23T14:00:00Z", undefined],
  ]);
});

test("Meetup export: a description folded across escapes, commas in LOCATION, a DST-less zone", async () => {
  const { backend } = exportsBackend();
  const [event] = await backend.listEvents(window("meetup-folded-description", "2011-11-01T00:00:00Z", "2011-12-01T00:00:00Z"));
  assert.equal(event?.description, "Phoenix Drupal User Group\nWednesday, November 9 at 7:00 PM\n\nCustomizing node display with template pages in Drupal 6\n\n Jon Sheehan and Matthew Berry of the Office of Knowledge Enterprise Development (OKED) Knowledge...\n\nDetails: http://www.meetup.com/Phoenix-Drupal-User-Group/events/33627272/");
  assert.equal(event?.location, "Open Source Project Tempe (1415 E University Dr. #103A, Tempe, AZ 85281)");
  assert.deepEqual([event?.start.dateTime, utc(event)], ["2011-11-09T19:00:00-07:00", "2011-11-10T02:00:00Z"]);
});

test("ownCloud export: unicode names, a yearly all-day series, a TZID on a DATE ignored", async () => {
  const { backend, notes } = exportsBackend();
  const events = await backend.listEvents(window("owncloud-yearly-unicode", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"));
  assert.deepEqual(events.map((e) => [e.summary, e.start, e.end, e.allDay, e.id]), [
    ["Fête Nationale - Férié", { date: "2026-07-14" }, { date: "2026-07-15" }, true, "FA9831E7-C238-4FEC-95E5-CD46BD466421_20260714"],
  ]);
  const calendars = await backend.listCalendars();
  assert.equal(calendars.find((c) => c.id === "owncloud-yearly-unicode")?.summary, "Fête Nationale - Férié");
  assert.deepEqual(notes, []);
});

test("Sixt export: never-folded long lines read whole; the value-less ORGANIZER is dropped with a note", async () => {
  const { backend, notes } = exportsBackend();
  const events = await backend.listEvents(window("sixt-french-unfolded", "2019-06-01T00:00:00Z", "2019-07-01T00:00:00Z"));
  assert.deepEqual(events.map((e) => [e.summary, e.start, e.end, e.location]), [[
    "Sixt : détails de votre réservation", { dateTime: "2019-06-24T06:30:00Z" }, { dateTime: "2019-06-24T16:30:00Z" },
    "Sixt Genève Aéroport secteur France, AP de Genève Cointrin Sect(F), 01210 Ferney-Voltaire, FR",
  ]]);
  assert.ok(events[0]?.description?.startsWith("\nVotre véhicule avec le numéro de réservation xxxxxxxxxxx sera à votre disposition le 24.06.2019"));
  assert.ok(events[0]?.description?.endsWith("sous http://www.sixt.fr\n"), "the VEVENT's description, not the VALARM's");
  assert.deepEqual(notes, [["sixt-french-unfolded", 'event "SIXT_9879691160": dropped "ORGANIZER;CN=Sixt SE": a property with no value']]);
});

test("Google export with an Apple UID: a Zurich weekday series keeps 14:00 local across the March DST change", async () => {
  const { backend } = exportsBackend();
  const events = await backend.listEvents(window("google-apple-structured-location", "2026-03-26T00:00:00Z", "2026-04-01T00:00:00Z"));
  assert.deepEqual(events.map((e) => [e.start.dateTime, utc(e)]), [
    ["2026-03-26T14:00:00+01:00", "2026-03-26T13:00:00Z"],
    ["2026-03-27T14:00:00+01:00", "2026-03-27T13:00:00Z"],
    ["2026-03-30T14:00:00+02:00", "2026-03-30T12:00:00Z"],
    ["2026-03-31T14:00:00+02:00", "2026-03-31T12:00:00Z"],
  ]);
  assert.equal(events[0]?.location, "Roadstar 16\n12764 Happyville\nDenmark");
});

test("every export lists as a calendar, named by X-WR-CALNAME where it has one", async () => {
  const { backend } = exportsBackend();
  const calendars = await backend.listCalendars();
  assert.deepEqual(calendars.map((c) => [c.id, c.summary]), [
    ["primary", "primary"],
    ["apple-macos-attendees", "Test"],
    ["exchange2010-ms-timezones", "Calendar"],
    ["google-allday-weekly", "calmozilla1@gmail.com"],
    ["google-apple-structured-location", "ITC"],
    ["google-birthday", "Contacts' birthdays and events"],
    ["meetup-folded-description", "My Meetups"],
    ["owncloud-yearly-unicode", "Fête Nationale - Férié"],
    ["sixt-french-unfolded", "sixt-french-unfolded"],
    ["thunderbird-vtimezone-valarm", "thunderbird-vtimezone-valarm"],
    ["zimbra-recur-instances", "zimbra-recur-instances"],
  ]);
});
