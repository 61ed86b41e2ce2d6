/**
 * `createCalendarProxy`: the grant (ids and globs), `allowCalendar`, id syntax and input checks.
 * Every refusal row sits beside a control that passes; refused calls never reach the backend.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createCalendarProxy, IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { CalendarBackend, CalendarProxyOptions, EventQuery, ListEventsRequest, NewEvent } from "../../../host-proxies/calendar/index.js";
import { InvalidInputError } from "../../../runtime/errors.js";
import { rejectsWith, tempDir } from "./_fixtures.js";

/** A backend that answers with nothing and records what reached it. */
function spyBackend(ids = ["primary", "team-a@example.com", "team-b@example.com", "secret@example.com"]) {
  const calls: string[] = [];
  const backend: CalendarBackend = {
    listCalendars: async () => ids.map((id) => ({ id, summary: id, primary: id === "primary" })),
    listEvents: async (q: EventQuery) => {
      calls.push(`list ${q.calendarId}`);
      return [];
    },
    addEvent: async (e) => {
      calls.push(`add ${e.calendarId}`);
      return { id: "x", calendarId: e.calendarId, summary: e.summary, start: e.start, end: e.end, allDay: false, attendees: e.attendees };
    },
  };
  return { backend, calls };
}

const list = (calendarId: string, extra: Partial<ListEventsRequest> = {}): ListEventsRequest => ({
  calendarId, timeMin: "2026-01-01T00:00:00Z", timeMax: "2026-02-01T00:00:00Z", query: undefined, maxResults: undefined, ...extra,
});
const add = (calendarId: string, extra: Partial<NewEvent> = {}): NewEvent => ({
  calendarId, summary: "Sync", description: undefined, location: undefined, attendees: [],
  start: { dateTime: "2026-01-15T09:00:00+01:00" }, end: { dateTime: "2026-01-15T10:00:00+01:00" }, ...extra,
});

const GRANT: CalendarProxyOptions = { calendars: ["primary", "team-*@example.com"] };

type GrantRow = [id: string, allowed: boolean];

const GRANT_ROWS: GrantRow[] = [
  ["primary", true],
  ["team-a@example.com", true],
  ["team-@example.com", true],
  ["secret@example.com", false],
  ["team-a@example.com.evil.org", false],
  ["eviltetam-a@example.com", false],
  ["Primary", false],
  ["primary2", false],
];

for (const [id, allowed] of GRANT_ROWS) {
  test(`grant ${JSON.stringify(GRANT.calendars)}: ${id} is ${allowed ? "allowed" : "refused"} for list and add`, async () => {
    const { backend, calls } = spyBackend();
    const proxy = createCalendarProxy(backend, GRANT);
    if (allowed) {
      await proxy.listEvents(list(id));
      await proxy.addEvent(add(id));
      assert.deepEqual(calls, [`list ${id}`, `add ${id}`]);
      return;
    }
    await rejectsWith(proxy.listEvents(list(id)), { tag: "denied", reason: "calendar-not-granted", capability: "calendar.read" });
    await rejectsWith(proxy.addEvent(add(id)), { tag: "denied", reason: "calendar-not-granted", capability: "calendar.add" });
    assert.deepEqual(calls, []);
  });
}

test("listCalendars shows only granted calendars; control: a `*` grant shows all", async () => {
  const { backend } = spyBackend();
  assert.deepEqual((await createCalendarProxy(backend, GRANT).listCalendars()).map((c) => c.id), ["primary", "team-a@example.com", "team-b@example.com"]);
  assert.deepEqual((await createCalendarProxy(backend, { calendars: ["*"] }).listCalendars()).map((c) => c.id), ["primary", "team-a@example.com", "team-b@example.com", "secret@example.com"]);
  assert.deepEqual(await createCalendarProxy(backend, { calendars: [] }).listCalendars(), [], "an empty grant sees nothing");
});

test("allowCalendar narrows per capability: read allowed, add refused on the same calendar", async () => {
  const { backend, calls } = spyBackend();
  const proxy = createCalendarProxy(backend, { ...GRANT, allowCalendar: (_id, capability) => capability === "calendar.read" });
  await proxy.listEvents(list("primary"));
  await rejectsWith(proxy.addEvent(add("primary")), { tag: "denied", reason: "calendar-not-granted", capability: "calendar.add" });
  assert.deepEqual(calls, ["list primary"]);
  const failing = createCalendarProxy(backend, { ...GRANT, allowCalendar: () => { throw new Error("policy down"); } });
  await rejectsWith(failing.listEvents(list("primary")), { tag: "io" });
  assert.deepEqual(calls, ["list primary"], "a failing decision lets nothing through");
});

const PATH_TRICKS = ["../x", "..", "../../etc/passwd", "a/b", "/etc/passwd", "a\\b", ".hidden", "primary/../secret", "x..y", "prim*", "*", "", " primary", "primary\n", "-rf", "%2e%2e%2fx", "a".repeat(256)];

for (const id of PATH_TRICKS) {
  test(`a calendar id like ${JSON.stringify(id.slice(0, 20))} is invalid input, even under a \`*\` grant`, async () => {
    const { backend, calls } = spyBackend();
    const proxy = createCalendarProxy(backend, { calendars: ["*"] });
    await rejectsWith(proxy.listEvents(list(id)), { tag: "invalid-input", message: "calendarId" });
    await rejectsWith(proxy.addEvent(add(id)), { tag: "invalid-input", message: "calendarId" });
    assert.deepEqual(calls, []);
  });
}

test("control: ids with Google's punctuation pass (`#`, `@`, `.`, `_`, `+`, `=`)", async () => {
  const { backend, calls } = spyBackend();
  const proxy = createCalendarProxy(backend, { calendars: ["*"] });
  for (const id of ["en.usa#holiday@group.v.calendar.google.com", "#contacts@group.v.calendar.google.com", "i_71.23.40.78#sunrise@group.v.calendar.google.com", "a+b=c@example.com"]) {
    await proxy.listEvents(list(id));
  }
  assert.equal(calls.length, 4);
});

test("the .ics backend never opens a path-trick id even when called directly", async (t) => {
  const backend = new IcsFileBackend(await tempDir(t));
  await rejectsWith(backend.listEvents({ calendarId: "../x", timeMin: "2026-01-01T00:00:00Z", timeMax: "2026-01-02T00:00:00Z", query: undefined, maxResults: 10 }), { tag: "invalid-input" });
});

type InputRow = [why: string, request: ListEventsRequest | NewEvent, message: string];

const LIST_ROWS: InputRow[] = [
  ["timeMin is not RFC 3339", list("primary", { timeMin: "next monday" }), "timeMin must be an RFC 3339"],
  ["timeMin has no offset", list("primary", { timeMin: "2026-01-01T00:00:00" }), "timeMin must be an RFC 3339"],
  ["timeMax is not a real date", list("primary", { timeMax: "2026-02-30T00:00:00Z" }), "timeMax must be"],
  ["timeMax before timeMin", list("primary", { timeMax: "2025-12-31T00:00:00Z" }), "must be after timeMin"],
  ["timeMax equals timeMin", list("primary", { timeMax: "2026-01-01T00:00:00Z" }), "must be after timeMin"],
  ["a window over 366 days", list("primary", { timeMax: "2027-01-02T00:00:01Z" }), "at most 366 days"],
  ["maxResults 0", list("primary", { maxResults: 0 }), "maxResults must be from 1 to 2500"],
  ["maxResults 2501", list("primary", { maxResults: 2501 }), "maxResults must be from 1 to 2500"],
  ["a query of 501 characters", list("primary", { query: "x".repeat(501) }), "query must be at most 500"],
];

const LIST_CONTROLS: ListEventsRequest[] = [
  list("primary"),
  list("primary", { timeMax: "2027-01-02T00:00:00Z" }),
  list("primary", { timeMin: "2026-01-01T01:00:00+01:00", maxResults: 2500, query: "x".repeat(500) }),
];

const START = { dateTime: "2026-01-15T09:00:00+01:00" };
const ADD_ROWS: InputRow[] = [
  ["an empty summary", add("primary", { summary: "  " }), "summary must not be empty"],
  ["a summary over 1024 characters", add("primary", { summary: "x".repeat(1025) }), "summary must be at most 1024"],
  ["a line break in the summary", add("primary", { summary: "a\nBEGIN:VEVENT" }), "summary must be one line"],
  ["a control character in the description", add("primary", { description: "a\u0007b" }), "control characters"],
  ["a lone surrogate", add("primary", { summary: "a\ud800" }), "lone surrogate"],
  ["a date start with a dateTime end", add("primary", { start: { date: "2026-01-15" } }), "both be dates"],
  ["both date and dateTime", add("primary", { start: { date: "2026-01-15", dateTime: START.dateTime } }), "exactly one of date and dateTime"],
  ["end before start", add("primary", { end: { dateTime: "2026-01-15T08:00:00+01:00" } }), "end must be after start"],
  ["end equal to start", add("primary", { end: START }), "end must be after start"],
  ["an all-day end on the start day", add("primary", { start: { date: "2026-01-15" }, end: { date: "2026-01-15" } }), "end.date is exclusive"],
  ["no offset and no time zone", add("primary", { start: { dateTime: "2026-01-15T09:00:00" } }), "has no offset"],
  ["a time zone that is not IANA", add("primary", { start: { ...START, timeZone: "Mars/Olympus" } }), "IANA time zone"],
  ["a Windows zone name", add("primary", { start: { ...START, timeZone: "W. Europe Standard Time" } }), "IANA time zone"],
  ["a time zone on an all-day date", add("primary", { start: { date: "2026-01-15", timeZone: "Europe/Zurich" }, end: { date: "2026-01-16" } }), "dateTime only"],
  ["the year 1850", add("primary", { start: { date: "1850-01-01" }, end: { date: "1850-01-02" } }), "years 1900 to 2500"],
  ["an attendee that is not an address", add("primary", { attendees: ["not-an-email"] }), "attendees[0] must be an email"],
  ["an attendee with a display name", add("primary", { attendees: ["Ana <ana@example.com>"] }), "attendees[0] must be an email"],
  ["101 attendees", add("primary", { attendees: Array.from({ length: 101 }, (_, i) => `p${i}@example.com`) }), "at most 100 attendees"],
];

const ADD_CONTROLS: NewEvent[] = [
  add("primary"),
  add("primary", { start: { dateTime: "2026-01-15T09:00:00", timeZone: "europe/zurich" }, end: { dateTime: "2026-01-15T10:00:00", timeZone: "Europe/Zurich" } }),
  add("primary", { start: { date: "2026-01-15" }, end: { date: "2026-01-16" }, description: "tabs\tand\r\nlines", attendees: ["Ana@Example.com", "ana@example.com"] }),
  add("primary", { summary: "x".repeat(1024), attendees: Array.from({ length: 100 }, (_, i) => `p${i}@example.com`) }),
];

for (const [why, request, message] of [...LIST_ROWS, ...ADD_ROWS]) {
  test(`invalid input: ${why}`, async () => {
    const { backend, calls } = spyBackend();
    const proxy = createCalendarProxy(backend, GRANT);
    const call = "summary" in request ? proxy.addEvent(request) : proxy.listEvents(request);
    await rejectsWith(call, { tag: "invalid-input", message });
    assert.deepEqual(calls, []);
  });
}

test("controls: well-formed requests beside the invalid rows reach the backend, canonicalised", async () => {
  const seen: unknown[] = [];
  const { backend } = spyBackend();
  const proxy = createCalendarProxy({ ...backend, listEvents: async (q) => (seen.push(q), []), addEvent: async (e) => (seen.push(e), backend.addEvent(e)) }, GRANT);
  for (const request of LIST_CONTROLS) await proxy.listEvents(request);
  for (const event of ADD_CONTROLS) await proxy.addEvent(event);
  assert.deepEqual(seen[2], { calendarId: "primary", timeMin: "2026-01-01T00:00:00Z", timeMax: "2026-02-01T00:00:00Z", query: "x".repeat(500), maxResults: 2500 });
  assert.deepEqual((seen[4] as NewEvent).start, { dateTime: "2026-01-15T09:00:00+01:00", timeZone: "Europe/Zurich" }, "zone canonical, offset derived");
  assert.deepEqual((seen[5] as NewEvent).attendees, ["ana@example.com"], "addresses lowercased, each once");
  assert.equal((seen[5] as NewEvent).description, "tabs\tand\nlines");
  assert.equal(seen.length, LIST_CONTROLS.length + ADD_CONTROLS.length);
});

test("the grant is decided before the input: an ungranted calendar with bad times is denied", async () => {
  const { backend } = spyBackend();
  const proxy = createCalendarProxy(backend, GRANT);
  await rejectsWith(proxy.listEvents(list("secret@example.com", { timeMin: "garbage" })), { tag: "denied", reason: "calendar-not-granted" });
  await rejectsWith(proxy.listEvents(list("primary", { timeMin: "garbage" })), { tag: "invalid-input" });
});

test("createCalendarProxy refuses a malformed grant", () => {
  const { backend } = spyBackend();
  assert.throws(() => createCalendarProxy(backend, { calendars: [""] }), InvalidInputError);
  assert.throws(() => createCalendarProxy(backend, { calendars: "primary" as unknown as string[] }), InvalidInputError);
  assert.doesNotThrow(() => createCalendarProxy(backend, { calendars: ["primary"] }));
});
