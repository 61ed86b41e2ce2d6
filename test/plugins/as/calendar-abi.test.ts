/**
 * The AssemblyScript calendar plugin against `clawhive:host/calendar`, byte for byte through jco's
 * glue: a list request's options lowered (none stays none), a new event lowered through memory (it
 * flattens past 16 values) with every option some and none, every field of an event lifted
 * (non-ASCII text, each option some and none), and memory flat over a long session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent } from "./component.js";

const full = {
  id: "é1", calendarId: "primary", summary: "Réunion 🦀", description: "Ordre du jour…", location: "Zürich",
  start: { date: undefined, dateTime: "2026-11-23T09:00:00+01:00", timeZone: "Europe/Zürich" },
  end: { date: undefined, dateTime: "2026-11-23T09:15:00+01:00", timeZone: undefined },
  allDay: false, recurringEventId: "standup", attendees: ["zoë@exämple.com", "b@example.org"], status: "confirmed",
};
const bare = {
  id: "e2", calendarId: "team", summary: "", description: undefined, location: undefined,
  start: { date: "2026-11-26", dateTime: undefined, timeZone: undefined }, end: { date: "2026-11-27", dateTime: undefined, timeZone: undefined },
  allDay: true, recurringEventId: undefined, attendees: [], status: undefined,
};

async function plugin() {
  const calls: unknown[][] = [];
  const answers: Record<string, unknown> = {};
  const host: Record<string, (arg?: unknown) => unknown> = {};
  for (const fn of ["listCalendars", "listEvents", "addEvent"]) host[fn] = (arg?: unknown) => (calls.push([fn, arg]), answers[fn]);
  const loaded = await loadComponent(join(PROJECT_ROOT, "plugins", "calendar"), { "clawhive:host/calendar": host });
  return { ...loaded, calls, answers };
}

test("calendar.list-calendars: every field lifted, in order", async () => {
  const p = await plugin();
  p.answers["listCalendars"] = [{ id: "primary", summary: "Kalender Zoë", primary: true }, { id: "t@group", summary: "", primary: false }];
  assert.deepEqual(JSON.parse(p.tools.call("list_calendars", "{}")), {
    count: 2,
    calendars: [{ id: "primary", summary: "Kalender Zoë", primary: true }, { id: "t@group", summary: "", primary: false }],
  });
});

test("calendar.list-events: each option lowered, none stays none; every field of an event lifted, some and none", async () => {
  const p = await plugin();
  p.answers["listEvents"] = [full, bare];
  const out = JSON.parse(p.tools.call("list_events", JSON.stringify({ from: "2026-11-22", calendar_id: "primary", query: "réunion", max_results: 250 }))) as { events: unknown[] };
  p.answers["listEvents"] = [];
  p.tools.call("list_events", JSON.stringify({ from: "2026-11-22T10:00:00+05:30", to: "2026-11-22T12:00Z" }));
  assert.deepEqual(p.calls, [
    ["listEvents", { calendarId: "primary", timeMin: "2026-11-22T00:00:00Z", timeMax: "2026-11-29T00:00:00Z", query: "réunion", maxResults: 250 }],
    ["listEvents", { calendarId: "primary", timeMin: "2026-11-22T04:30:00Z", timeMax: "2026-11-22T12:00:00Z", query: undefined, maxResults: 50 }],
  ]);
  assert.deepEqual(out.events, [
    {
      id: "é1", calendar_id: "primary", summary: "Réunion 🦀", description: "Ordre du jour…", location: "Zürich",
      start: { date_time: "2026-11-23T09:00:00+01:00", time_zone: "Europe/Zürich" }, end: { date_time: "2026-11-23T09:15:00+01:00" },
      all_day: false, recurring_event_id: "standup", attendees: ["zoë@exämple.com", "b@example.org"], status: "confirmed",
    },
    { id: "e2", calendar_id: "team", summary: "", start: { date: "2026-11-26" }, end: { date: "2026-11-27" }, all_day: true, attendees: [] },
  ]);
});

test("calendar.add-event: the record lowered through memory, every option some and none; the created event lifted", async () => {
  const p = await plugin();
  p.answers["addEvent"] = full;
  const out = JSON.parse(p.tools.call("add_event", JSON.stringify({
    calendar_id: "primary", summary: "Réunion 🦀", start: "2026-11-24T19:30", end: "2026-11-24T21:00", time_zone: "America/Argentina/Buenos_Aires",
    location: "Zürich", description: "Ordre du jour…", attendees: ["zoë@exämple.com", " b@example.org "],
  }))) as { created: Record<string, unknown> };
  p.answers["addEvent"] = bare;
  p.tools.call("add_event", JSON.stringify({ calendar_id: "team", summary: "x", start: "2026-12-31" }));
  assert.deepEqual(p.calls, [
    ["addEvent", {
      calendarId: "primary", summary: "Réunion 🦀", description: "Ordre du jour…", location: "Zürich",
      start: { date: undefined, dateTime: "2026-11-24T19:30:00", timeZone: "America/Argentina/Buenos_Aires" },
      end: { date: undefined, dateTime: "2026-11-24T21:00:00", timeZone: "America/Argentina/Buenos_Aires" },
      attendees: ["zoë@exämple.com", "b@example.org"],
    }],
    ["addEvent", {
      calendarId: "team", summary: "x", description: undefined, location: undefined,
      start: { date: "2026-12-31", dateTime: undefined, timeZone: undefined }, end: { date: "2027-01-01", dateTime: undefined, timeZone: undefined },
      attendees: [],
    }],
  ]);
  assert.equal(out.created.summary, "Réunion 🦀");
  assert.deepEqual(out.created.start, { date_time: "2026-11-23T09:00:00+01:00", time_zone: "Europe/Zürich" });
});

test("calendar: memory stays flat over 3,000 calls of every tool", async () => {
  const p = await plugin();
  p.answers["listCalendars"] = [{ id: "primary", summary: "p", primary: true }];
  p.answers["listEvents"] = [full, bare, full];
  p.answers["addEvent"] = full;
  const add = JSON.stringify({ calendar_id: "primary", summary: "x", start: "2026-11-24T10:00:00Z", end: "2026-11-24T11:00:00Z", location: "L", attendees: ["a@b.c", "d@e.f"] });
  const round = () => {
    p.tools.call("list_calendars", "{}");
    p.tools.call("list_events", '{"from":"2026-11-22","query":"q"}');
    p.tools.call("add_event", add);
  };
  for (let i = 0; i < 200; i++) round();
  const before = p.memoryBytes();
  for (let i = 0; i < 1000; i++) round();
  assert.equal(p.memoryBytes(), before);
});
