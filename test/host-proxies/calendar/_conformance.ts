/**
 * The one conformance suite every `CalendarBackend` passes (conformance.test.ts runs it against
 * the .ics backend and against the Google backend talking to the discovery-checked fake).
 * It pins the contract in host-proxies/calendar/types.ts: the primary calendar as `primary`,
 * events read back as added, Google's window rule, start order, `maxResults`, `q`, recurring
 * series as occurrences, not-found for unknown calendars.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import type { CalendarBackend, CalendarEvent } from "../../../host-proxies/calendar/index.js";
import { ms, newEvent, rejectsWith, window } from "./_fixtures.js";

/** A weekly series at 09:00 Europe/Zurich from Monday 2026-01-05 (all in CET, +01:00). */
export const WEEKLY = { summary: "Standup", firstDate: "2026-01-05", weeks: 6, skipWeek: 2, minutes: 30, timeZone: "Europe/Zurich" } as const;

/** The instants (ms) of WEEKLY's occurrences: every week but `skipWeek`. */
export function weeklyStarts(): string[] {
  const first = Date.parse(`${WEEKLY.firstDate}T09:00:00+01:00`);
  return Array.from({ length: WEEKLY.weeks }, (_, i) => i)
    .filter((i) => i !== WEEKLY.skipWeek)
    .map((i) => new Date(first + i * 7 * 86_400_000).toISOString().replace(".000Z", "Z"));
}

export interface BackendHarness {
  backend: CalendarBackend;
  /** A calendar the backend has besides `primary`. */
  otherCalendarId: string;
  /** Stores WEEKLY in `calendarId` the backend's own way (an RRULE with EXDATE; Google's instances). */
  seedWeekly(calendarId: string): Promise<void>;
  /** Makes the backend page through results of at most `size` items (Google), if it pages. */
  pageSize(size: number): void;
  /** Asserts nothing went wrong out of sight (e.g. the fake refused a request or broke its schema). */
  verify(): void;
}

export type MakeHarness = (t: TestContext) => Promise<BackendHarness>;

const JAN = ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"] as const;

export function calendarBackendConformance(name: string, make: MakeHarness): void {
  describe(`CalendarBackend conformance: ${name}`, () => {
    it("lists the primary calendar once, as `primary`, and the other calendars", async (t) => {
      const h = await make(t);
      const calendars = await h.backend.listCalendars();
      assert.deepEqual(calendars.filter((c) => c.primary).map((c) => c.id), ["primary"]);
      const other = calendars.find((c) => c.id === h.otherCalendarId);
      assert.ok(other !== undefined && !other.primary && other.summary !== "", JSON.stringify(calendars));
      h.verify();
    });

    it("adds a timed event in a time zone and lists it back exactly as added", async (t) => {
      const h = await make(t);
      const asked = newEvent({
        summary: "Zürich review, part 2", location: "Room 4; Bahnhofstrasse 1, Zürich",
        description: "Agenda:\n1. budget, plan\n2. naïve questions; more — 日本語 \\ done",
        start: { dateTime: "2026-01-15T09:00:00", timeZone: "Europe/Zurich" }, end: { dateTime: "2026-01-15T10:30:00", timeZone: "Europe/Zurich" },
        attendees: ["Ana@Example.com", "bo@example.org"],
      });
      const added = await h.backend.addEvent(asked);
      assert.equal(ms(added.start.dateTime), Date.parse("2026-01-15T08:00:00Z"), "09:00 in Zurich in winter is 08:00Z");
      assert.equal(added.start.timeZone, "Europe/Zurich");
      assert.deepEqual([added.summary, added.location, added.description, added.attendees, added.allDay], [asked.summary, asked.location, asked.description, ["ana@example.com", "bo@example.org"], false]);
      const listed = await h.backend.listEvents(window("primary", ...JAN));
      assert.deepEqual(listed, [added]);
      h.verify();
    });

    it("places 09:00 Europe/Zurich at 07:00Z in summer", async (t) => {
      const h = await make(t);
      const added = await h.backend.addEvent(newEvent({ start: { dateTime: "2026-07-15T09:00:00", timeZone: "Europe/Zurich" }, end: { dateTime: "2026-07-15T09:45:00", timeZone: "Europe/Zurich" } }));
      assert.equal(added.start.dateTime, "2026-07-15T09:00:00+02:00");
      assert.equal(ms(added.end.dateTime), Date.parse("2026-07-15T07:45:00Z"));
      assert.deepEqual(await h.backend.listEvents(window("primary", "2026-07-15T00:00:00Z", "2026-07-16T00:00:00Z")), [added]);
      h.verify();
    });

    it("adds an event given in UTC without a time zone", async (t) => {
      const h = await make(t);
      const added = await h.backend.addEvent(newEvent({ start: { dateTime: "2026-01-20T16:00:00+01:00" }, end: { dateTime: "2026-01-20T17:00:00Z" } }));
      assert.deepEqual([added.start, added.end], [{ dateTime: "2026-01-20T15:00:00Z" }, { dateTime: "2026-01-20T17:00:00Z" }]);
      assert.deepEqual(await h.backend.listEvents(window("primary", ...JAN)), [added]);
      h.verify();
    });

    it("adds an all-day event with an exclusive end date", async (t) => {
      const h = await make(t);
      const added = await h.backend.addEvent(newEvent({ summary: "Offsite", start: { date: "2026-01-22" }, end: { date: "2026-01-24" } }));
      assert.deepEqual([added.start, added.end, added.allDay], [{ date: "2026-01-22" }, { date: "2026-01-24" }, true]);
      assert.deepEqual(await h.backend.listEvents(window("primary", "2026-01-23T12:00:00Z", "2026-01-23T13:00:00Z")), [added]);
      assert.deepEqual(await h.backend.listEvents(window("primary", "2026-01-24T00:00:00Z", "2026-01-25T00:00:00Z")), [], "the end date is exclusive");
      h.verify();
    });

    it("lists what ends after timeMin and starts before timeMax (Google's rule)", async (t) => {
      const h = await make(t);
      const at = (hour: number) => ({ dateTime: `2026-01-10T${String(hour).padStart(2, "0")}:00:00Z` });
      for (const [summary, from, to] of [["ends at timeMin", 8, 10], ["straddles timeMin", 9, 11], ["inside", 11, 12], ["straddles timeMax", 13, 15], ["starts at timeMax", 14, 15]] as const) {
        await h.backend.addEvent(newEvent({ summary, start: at(from), end: at(to) }));
      }
      const listed = await h.backend.listEvents(window("primary", "2026-01-10T10:00:00Z", "2026-01-10T14:00:00Z"));
      assert.deepEqual(listed.map((e) => e.summary), ["straddles timeMin", "inside", "straddles timeMax"]);
      h.verify();
    });

    it("orders by start time and stops at maxResults, across pages", async (t) => {
      const h = await make(t);
      h.pageSize(2);
      for (const day of [14, 11, 13, 12, 10]) await h.backend.addEvent(newEvent({ summary: `day ${day}`, start: { date: `2026-01-${day}` }, end: { date: `2026-01-${day + 1}` } }));
      assert.deepEqual((await h.backend.listEvents(window("primary", ...JAN))).map((e) => e.summary), ["day 10", "day 11", "day 12", "day 13", "day 14"]);
      assert.deepEqual((await h.backend.listEvents(window("primary", ...JAN, { maxResults: 3 }))).map((e) => e.summary), ["day 10", "day 11", "day 12"]);
      h.verify();
    });

    it("matches query terms in summary, description, location and attendees, ignoring case", async (t) => {
      const h = await make(t);
      const day = (d: number) => ({ start: { dateTime: `2026-01-${d}T10:00:00Z` }, end: { dateTime: `2026-01-${d}T11:00:00Z` } });
      await h.backend.addEvent(newEvent({ summary: "Dentist", ...day(12) }));
      await h.backend.addEvent(newEvent({ summary: "Lunch", description: "with the DENTIST team", ...day(13) }));
      await h.backend.addEvent(newEvent({ summary: "Walk", location: "Dentist square", attendees: ["kim@example.com"], ...day(14) }));
      await h.backend.addEvent(newEvent({ summary: "Gym", ...day(15) }));
      const find = async (query: string) => (await h.backend.listEvents(window("primary", ...JAN, { query }))).map((e) => e.summary);
      assert.deepEqual(await find("dentist"), ["Dentist", "Lunch", "Walk"]);
      assert.deepEqual(await find("dentist square"), ["Walk"], "every term must match");
      assert.deepEqual(await find("kim@example.com"), ["Walk"]);
      assert.deepEqual(await find("gym"), ["Gym"], "control: a plain match");
      h.verify();
    });

    it("lists a weekly series as its occurrences, with the skipped week absent", async (t) => {
      const h = await make(t);
      await h.seedWeekly("primary");
      const listed = await h.backend.listEvents(window("primary", ...JAN));
      const series = listed[0]?.recurringEventId;
      assert.ok(series !== undefined && series !== "");
      assert.deepEqual(listed.map((e) => new Date(ms(e.start.dateTime)).toISOString().replace(".000Z", "Z")), weeklyStarts().filter((s) => s < JAN[1]));
      assert.ok(listed.every((e: CalendarEvent) => e.recurringEventId === series && e.id !== series && e.summary === WEEKLY.summary && e.start.timeZone === WEEKLY.timeZone));
      assert.equal(new Set(listed.map((e) => e.id)).size, listed.length, "occurrence ids are distinct");
      assert.equal(ms(listed[0]?.end.dateTime) - ms(listed[0]?.start.dateTime), WEEKLY.minutes * 60_000);
      h.verify();
    });

    it("keeps events in the calendar they were added to", async (t) => {
      const h = await make(t);
      const other = await h.backend.addEvent(newEvent({ calendarId: h.otherCalendarId, summary: "elsewhere", start: { date: "2026-01-12" }, end: { date: "2026-01-13" } }));
      assert.deepEqual(await h.backend.listEvents(window("primary", ...JAN)), []);
      assert.deepEqual(await h.backend.listEvents(window(h.otherCalendarId, ...JAN)), [other]);
      h.verify();
    });

    it("answers not-found for a calendar it does not have (list and add), and not for primary", async (t) => {
      const h = await make(t);
      await rejectsWith(h.backend.listEvents(window("no-such-calendar@example.com", ...JAN)), { tag: "not-found" });
      await rejectsWith(h.backend.addEvent(newEvent({ calendarId: "no-such-calendar@example.com", start: { date: "2026-01-12" }, end: { date: "2026-01-13" } })), { tag: "not-found" });
      assert.deepEqual(await h.backend.listEvents(window("primary", ...JAN)), [], "control: primary exists, empty");
      h.verify();
    });
  });
}
