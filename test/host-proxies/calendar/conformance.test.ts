/** The backend conformance suite (_conformance.ts), run against both backends. */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GoogleCalendarBackend, IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import { calendarBackendConformance, WEEKLY, weeklyStarts } from "./_conformance.js";
import { startFakeGoogle } from "./_fake-google.js";
import { tempDir } from "./_fixtures.js";

calendarBackendConformance("IcsFileBackend", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "team.ics"), "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-CALNAME:Team\r\nEND:VCALENDAR\r\n");
  const notes: string[] = [];
  return {
    backend: new IcsFileBackend(dir, { onNote: (_id, note) => notes.push(note) }),
    otherCalendarId: "team",
    seedWeekly: async (calendarId) => {
      // An RRULE with an EXDATE, and a TZID with no VTIMEZONE (as Apple exports write it).
      const local = (iso: string) => iso.replace(/[-:]/g, "").slice(0, 15);
      const first = `${WEEKLY.firstDate}T09:00:00`;
      const skipped = new Date(Date.parse(`${first}Z`) + WEEKLY.skipWeek * 7 * 86_400_000).toISOString();
      const end = new Date(Date.parse(`${first}Z`) + WEEKLY.minutes * 60_000).toISOString();
      await writeFile(join(dir, `${calendarId}.ics`), [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VEVENT", "UID:weekly-standup@test", "DTSTAMP:20251201T000000Z",
        `SUMMARY:${WEEKLY.summary}`, `DTSTART;TZID=${WEEKLY.timeZone}:${local(first)}`, `DTEND;TZID=${WEEKLY.timeZone}:${local(end)}`,
        `RRULE:FREQ=WEEKLY;COUNT=${WEEKLY.weeks}`, `EXDATE;TZID=${WEEKLY.timeZone}:${local(skipped)}`, "END:VEVENT", "END:VCALENDAR", "",
      ].join("\r\n"));
    },
    pageSize: () => undefined,
    verify: () => assert.deepEqual(notes, [], "the backend read its own files without mending anything"),
  };
});

calendarBackendConformance("GoogleCalendarBackend (fake Calendar API checked against the discovery document)", async (t) => {
  const fake = await startFakeGoogle(t);
  return {
    backend: new GoogleCalendarBackend({ token: async () => fake.token, baseUrl: fake.baseUrl }),
    otherCalendarId: "jcrowgey@uw.edu",
    seedWeekly: async (calendarId) => {
      const starts = weeklyStarts().map((s) => new Date(Date.parse(s) + 3_600_000).toISOString().replace(".000Z", "+01:00"));
      fake.data.seedSeries(calendarId, { summary: WEEKLY.summary, starts, minutes: WEEKLY.minutes, timeZone: WEEKLY.timeZone });
    },
    pageSize: (size) => {
      fake.data.pageSize = size;
    },
    verify: () => {
      assert.deepEqual(fake.problems, [], "what the fake answered fits the discovery document");
      assert.deepEqual(fake.refused, [], "the backend sent nothing Google would refuse");
      assert.ok(fake.requests.length > 0 && fake.requests.every((r) => r.authorization === `Bearer ${fake.token}`));
    },
  };
});
