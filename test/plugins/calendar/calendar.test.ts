import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { callErr, callOk, repoRoot } from "../files/harness.js";
import type { FakeEvent } from "./fake-calendar.js";
import { calendarPlugin } from "./harness.js";

test("describe: reads are safe, add_event is guarded, each with its one capability, as plugin.json says", async () => {
  const { tools } = await calendarPlugin();
  const manifest = JSON.parse(await readFile(join(repoRoot(), "plugins/calendar/plugin.json"), "utf8")) as {
    capabilities: string[];
    tools: Record<string, { risk: string }>;
  };
  const described = Object.fromEntries(tools.describe().map((d) => [d.name, d]));
  assert.deepEqual(Object.keys(described).sort(), Object.keys(manifest.tools).sort());
  assert.deepEqual(
    Object.values(described).map((d) => [d.name, d.risk, d.capabilities]),
    [
      ["list_calendars", "safe", ["calendar.read"]],
      ["list_events", "safe", ["calendar.read"]],
      ["add_event", "guarded", ["calendar.add"]],
    ],
  );
  for (const d of Object.values(described)) assert.equal(d.risk, manifest.tools[d.name]?.risk);
  assert.deepEqual(manifest.capabilities.sort(), ["calendar.add", "calendar.read"]);
});

test("list_calendars: id, summary and primary of each granted calendar", async () => {
  const { tools } = await calendarPlugin();
  assert.deepEqual(callOk(tools, "list_calendars", {}), {
    count: 2,
    calendars: [
      { id: "primary", summary: "primary calendar", primary: true },
      { id: "team", summary: "team calendar", primary: false },
    ],
  });
});

const EVENTS: FakeEvent[] = [
  {
    id: "e1",
    calendarId: "primary",
    summary: "Standup",
    start: { dateTime: "2026-11-23T09:00:00+01:00", timeZone: "Europe/Paris" },
    end: { dateTime: "2026-11-23T09:15:00+01:00", timeZone: "Europe/Paris" },
    allDay: false,
    recurringEventId: "standup",
    attendees: ["a@example.com"],
    status: "confirmed",
  },
  { id: "e2", calendarId: "primary", summary: "Holiday", location: "Home", start: { date: "2026-11-26" }, end: { date: "2026-11-27" }, allDay: true, attendees: [] },
  { id: "e3", calendarId: "primary", summary: "Far away", start: { date: "2027-03-01" }, end: { date: "2027-03-02" }, allDay: true, attendees: [] },
];

// [description, input, expected timeMin, expected timeMax]
const BOUNDS: Array<[string, Record<string, unknown>, string, string]> = [
  ["a date from, to defaulting to 7 days later", { from: "2026-11-22" }, "2026-11-22T00:00:00Z", "2026-11-29T00:00:00Z"],
  ["a date-time from with an offset, read as an instant", { from: "2026-11-22T09:30:00+01:00" }, "2026-11-22T08:30:00Z", "2026-11-29T08:30:00Z"],
  ["a date-time without seconds, in Z", { from: "2026-11-22T09:30Z" }, "2026-11-22T09:30:00Z", "2026-11-29T09:30:00Z"],
  ["a date to, which includes its whole day", { from: "2026-11-22", to: "2026-11-22" }, "2026-11-22T00:00:00Z", "2026-11-23T00:00:00Z"],
  ["a negative offset crossing midnight", { from: "2026-12-31T20:00:00-05:00", to: "2027-01-01T02:00:00-05:00" }, "2027-01-01T01:00:00Z", "2027-01-01T07:00:00Z"],
  ["fractional seconds", { from: "2026-11-22T00:00:00.5Z", to: "2026-11-22T00:00:01Z" }, "2026-11-22T00:00:00.500Z", "2026-11-22T00:00:01Z"],
  ["a leap day", { from: "2028-02-29" }, "2028-02-29T00:00:00Z", "2028-03-07T00:00:00Z"],
  ["a window of exactly 366 days", { from: "2026-01-01", to: "2027-01-01" }, "2026-01-01T00:00:00Z", "2027-01-02T00:00:00Z"],
];

for (const [description, input, timeMin, timeMax] of BOUNDS) {
  test(`list_events: ${description}`, async () => {
    const { tools, calendar } = await calendarPlugin({ events: EVENTS });
    const result = callOk(tools, "list_events", input);
    assert.deepEqual(calendar.calls.at(-1)?.arg, { calendarId: "primary", timeMin, timeMax, maxResults: 50 });
    assert.deepEqual([result.time_min, result.time_max, result.calendar_id], [timeMin, timeMax, "primary"]);
  });
}

test("list_events: events in snake_case, all-day and timed, absent fields left out", async () => {
  const { tools, calendar } = await calendarPlugin({ events: EVENTS });
  const result = callOk(tools, "list_events", { from: "2026-11-22", calendar_id: "primary", query: "standup", max_results: 10 });
  assert.deepEqual(calendar.calls[0]?.arg, {
    calendarId: "primary",
    timeMin: "2026-11-22T00:00:00Z",
    timeMax: "2026-11-29T00:00:00Z",
    maxResults: 10,
    query: "standup",
  });
  assert.deepEqual(result.events, [
    {
      id: "e1",
      calendar_id: "primary",
      summary: "Standup",
      start: { date_time: "2026-11-23T09:00:00+01:00", time_zone: "Europe/Paris" },
      end: { date_time: "2026-11-23T09:15:00+01:00", time_zone: "Europe/Paris" },
      all_day: false,
      recurring_event_id: "standup",
      attendees: ["a@example.com"],
      status: "confirmed",
    },
    { id: "e2", calendar_id: "primary", summary: "Holiday", location: "Home", start: { date: "2026-11-26" }, end: { date: "2026-11-27" }, all_day: true, attendees: [] },
  ]);
  assert.equal(result.count, 2);
});

// Each beside the good bounds above; none reaches the host.
const BAD_LIST: Array<[string, Record<string, unknown>]> = [
  ["no from (the guest has no clock to default it)", {}],
  ["a date-time without an offset", { from: "2026-11-22T09:00:00" }],
  ["a day that does not exist", { from: "2026-02-30" }],
  ["a leap day in a common year", { from: "2027-02-29" }],
  ["month 13", { from: "2026-13-01" }],
  ["hour 24", { from: "2026-11-22T24:00:00Z" }],
  ["an offset of 24 hours", { from: "2026-11-22T10:00:00+24:00" }],
  ["a sentence", { from: "next tuesday" }],
  ["an ISO week date", { from: "2026-W47" }],
  ["to before from", { from: "2026-11-22", to: "2026-11-21T23:59:59Z" }],
  ["to equal to from", { from: "2026-11-22T10:00:00Z", to: "2026-11-22T11:00:00+01:00" }],
  ["a window past 366 days", { from: "2026-01-01", to: "2027-01-02T00:00:00.001Z" }],
  ["max_results 0", { from: "2026-11-22", max_results: 0 }],
  ["max_results 251", { from: "2026-11-22", max_results: 251 }],
  ["an empty calendar_id", { from: "2026-11-22", calendar_id: "" }],
  ["an unknown field", { from: "2026-11-22", until: "2026-11-23" }],
];

for (const [description, input] of BAD_LIST) {
  test(`list_events: invalid-input for ${description}`, async () => {
    const { tools, calendar } = await calendarPlugin({ events: EVENTS });
    const error = callErr(tools, "list_events", input);
    assert.equal(error.tag, "invalid-input", JSON.stringify(error));
    assert.deepEqual(calendar.calls, []);
  });
}

test("list_events: a calendar outside the grant is denied; a granted one works (control)", async () => {
  const { tools } = await calendarPlugin({ events: EVENTS });
  const error = callErr(tools, "list_events", { from: "2026-11-22", calendar_id: "boss@example.com" });
  assert.equal(error.tag, "denied");
  assert.deepEqual(error.tag === "denied" && [error.val.capability, error.val.reason], ["calendar.read", "calendar-not-allowed"]);
  callOk(tools, "list_events", { from: "2026-11-22", calendar_id: "team" });
});

// [description, input, the new-event record the host receives]
const ADDS: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  [
    "a timed event with offsets",
    { calendar_id: "primary", summary: "Review", start: "2026-11-24T14:00:00+01:00", end: "2026-11-24T15:00+01:00" },
    { calendarId: "primary", summary: "Review", start: { dateTime: "2026-11-24T14:00:00+01:00" }, end: { dateTime: "2026-11-24T15:00:00+01:00" }, attendees: [] },
  ],
  [
    "local times with a time zone",
    { calendar_id: "primary", summary: "Dinner", start: "2026-11-24T19:30", end: "2026-11-24T21:00", time_zone: "America/Argentina/Buenos_Aires" },
    {
      calendarId: "primary",
      summary: "Dinner",
      start: { dateTime: "2026-11-24T19:30:00", timeZone: "America/Argentina/Buenos_Aires" },
      end: { dateTime: "2026-11-24T21:00:00", timeZone: "America/Argentina/Buenos_Aires" },
      attendees: [],
    },
  ],
  [
    "an all-day event, end defaulting to the next day",
    { calendar_id: "primary", summary: "Offsite", start: "2026-12-31" },
    { calendarId: "primary", summary: "Offsite", start: { date: "2026-12-31" }, end: { date: "2027-01-01" }, attendees: [] },
  ],
  [
    "a three-day all-day event with location, description and attendees (deduplicated, trimmed)",
    {
      calendar_id: "primary",
      summary: "  Conference ",
      start: "2026-11-24",
      end: "2026-11-27",
      location: "Lyon",
      description: "Talks",
      attendees: ["a@example.com", " b@example.org ", "A@example.com"],
    },
    {
      calendarId: "primary",
      summary: "Conference",
      description: "Talks",
      location: "Lyon",
      start: { date: "2026-11-24" },
      end: { date: "2026-11-27" },
      attendees: ["a@example.com", "b@example.org"],
    },
  ],
];

for (const [description, input, expected] of ADDS) {
  test(`add_event: ${description}`, async () => {
    const { tools, calendar } = await calendarPlugin();
    const result = callOk(tools, "add_event", input);
    assert.deepEqual(calendar.added, [expected]);
    const created = result.created as Record<string, unknown>;
    assert.equal(created.id, "ev-1");
    assert.equal(created.summary, expected.summary);
  });
}

const BAD_ADDS: Array<[string, Record<string, unknown>]> = [
  ["no calendar_id", { summary: "x", start: "2026-11-24" }],
  ["no summary", { calendar_id: "primary", start: "2026-11-24" }],
  ["a blank summary", { calendar_id: "primary", summary: "   ", start: "2026-11-24" }],
  ["no start", { calendar_id: "primary", summary: "x" }],
  ["a timed event without end", { calendar_id: "primary", summary: "x", start: "2026-11-24T10:00:00Z" }],
  ["a local time without time_zone", { calendar_id: "primary", summary: "x", start: "2026-11-24T10:00", end: "2026-11-24T11:00" }],
  ["end before start", { calendar_id: "primary", summary: "x", start: "2026-11-24T10:00:00Z", end: "2026-11-24T10:30:00+01:00" }],
  ["end equal to start (local)", { calendar_id: "primary", summary: "x", start: "2026-11-24T10:00", end: "2026-11-24T10:00", time_zone: "UTC" }],
  ["an all-day end on the start day (end is exclusive)", { calendar_id: "primary", summary: "x", start: "2026-11-24", end: "2026-11-24" }],
  ["a date start with a date-time end", { calendar_id: "primary", summary: "x", start: "2026-11-24", end: "2026-11-25T10:00:00Z" }],
  ["a date-time start with a date end", { calendar_id: "primary", summary: "x", start: "2026-11-24T10:00:00Z", end: "2026-11-25" }],
  ["a time zone that is a sentence", { calendar_id: "primary", summary: "x", start: "2026-11-24T10:00", end: "2026-11-24T11:00", time_zone: "Paris time" }],
  ["a name for an attendee", { calendar_id: "primary", summary: "x", start: "2026-11-24", attendees: ["Alice"] }],
  ["an attendee with a display name", { calendar_id: "primary", summary: "x", start: "2026-11-24", attendees: ["Alice <a@example.com>"] }],
  ["an attendee that is not a string", { calendar_id: "primary", summary: "x", start: "2026-11-24", attendees: [42] }],
  ["attendees not a list", { calendar_id: "primary", summary: "x", start: "2026-11-24", attendees: "a@example.com" }],
  ["101 attendees", { calendar_id: "primary", summary: "x", start: "2026-11-24", attendees: Array.from({ length: 101 }, (_, i) => `p${i}@example.com`) }],
  ["a summary past 1024 characters", { calendar_id: "primary", summary: "x".repeat(1025), start: "2026-11-24" }],
];

for (const [description, input] of BAD_ADDS) {
  test(`add_event: invalid-input for ${description}, and nothing is added`, async () => {
    const { tools, calendar } = await calendarPlugin();
    const error = callErr(tools, "add_event", input);
    assert.equal(error.tag, "invalid-input", JSON.stringify(error));
    assert.deepEqual(calendar.calls, []);
  });
}

test("add_event: mixed offset and local times go to the host undecided (it has the zone database)", async () => {
  const { tools, calendar } = await calendarPlugin();
  callOk(tools, "add_event", { calendar_id: "primary", summary: "x", start: "2026-11-24T10:00", end: "2026-11-24T10:30:00Z", time_zone: "Europe/Paris" });
  assert.equal(calendar.added.length, 1);
});

test("add_event: a calendar calendar.add does not reach is denied, even when calendar.read does", async () => {
  const { tools, calendar } = await calendarPlugin();
  const error = callErr(tools, "add_event", { calendar_id: "team", summary: "x", start: "2026-11-24" });
  assert.equal(error.tag, "denied");
  assert.deepEqual(error.tag === "denied" && [error.val.capability, error.val.reason], ["calendar.add", "calendar-not-allowed"]);
  assert.deepEqual(calendar.added, []);
  callOk(tools, "add_event", { calendar_id: "primary", summary: "x", start: "2026-11-24" });
});

const FAULTS: Array<[string, () => never, string]> = [
  ["an io host error", () => { throw Object.assign(new Error("x"), { payload: { tag: "io", val: "backend down" } }); }, "failed"],
  ["a not-found host error", () => { throw Object.assign(new Error("x"), { payload: { tag: "not-found", val: "no such calendar" } }); }, "not-found"],
  ["a plain Error", () => { throw new Error("boom"); }, "failed"],
  ["undefined", () => { throw undefined; }, "failed"],
  ["a denial with non-string fields", () => { throw { payload: { tag: "denied", val: { capability: 1, reason: null, message: {} } } }; }, "denied"],
];

for (const [description, fault, tag] of FAULTS) {
  test(`no Error escapes call: the host throws ${description}`, async () => {
    const { tools, calendar } = await calendarPlugin();
    for (const fn of ["listCalendars", "listEvents", "addEvent"] as const) calendar.fault(fn, fault);
    assert.equal(callErr(tools, "list_calendars", {}).tag, tag);
    assert.equal(callErr(tools, "list_events", { from: "2026-11-22" }).tag, tag);
    assert.equal(callErr(tools, "add_event", { calendar_id: "primary", summary: "x", start: "2026-11-24" }).tag, tag);
  });
}

test("a host returning a malformed record fails the call, without an Error escaping", async () => {
  const { tools, calendar } = await calendarPlugin();
  calendar.fault("listEvents", () => [null]);
  assert.equal(callErr(tools, "list_events", { from: "2026-11-22" }).tag, "failed");
});
