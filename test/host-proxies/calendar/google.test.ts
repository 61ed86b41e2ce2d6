/**
 * The Google backend beyond the conformance suite: tokens, Google's statuses as host errors,
 * what it sends, the base URL it accepts; and the discovery-driven fake checking itself, so a
 * passing conformance run means something.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { GoogleCalendarBackend } from "../../../host-proxies/calendar/index.js";
import type { Expected } from "../../helpers/host-errors.js";
import { InvalidInputError } from "../../../runtime/errors.js";
import { startFakeGoogle } from "./_fake-google.js";
import { newEvent, rejectsWith, window } from "./_fixtures.js";

const JAN = ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"] as const;

async function setup(t: TestContext, token?: () => Promise<string>) {
  const fake = await startFakeGoogle(t);
  return { fake, backend: new GoogleCalendarBackend({ token: token ?? (async () => fake.token), baseUrl: fake.baseUrl }) };
}

test("a token Google rejects is a token-rejected denial naming the capability; the token is never in the message", async (t) => {
  const { backend, fake } = await setup(t, async () => "ya29.stale-secret");
  const read = await rejectsWith(backend.listEvents(window("primary", ...JAN)), { tag: "denied", reason: "token-rejected", capability: "calendar.read" });
  await rejectsWith(backend.addEvent(newEvent({ start: { date: "2026-01-05" }, end: { date: "2026-01-06" } })), { tag: "denied", reason: "token-rejected", capability: "calendar.add" });
  await rejectsWith(backend.listCalendars(), { tag: "denied", reason: "token-rejected" });
  assert.ok(!read.message.includes("stale-secret"));
  assert.equal(fake.requests[0]?.authorization, "Bearer ya29.stale-secret", "sent as a bearer token");
  const control = await setup(t);
  assert.deepEqual(await control.backend.listEvents(window("primary", ...JAN)), []);
});

test("a token source that fails, or returns no usable token, is an io error and sends nothing", async (t) => {
  for (const token of [async () => { throw new Error("refresh failed"); }, async () => "", async () => "abc\r\nx-evil: 1"]) {
    const { backend, fake } = await setup(t, token);
    await rejectsWith(backend.listEvents(window("primary", ...JAN)), { tag: "io", message: "token" });
    assert.equal(fake.requests.length, 0);
  }
});

test("events.list is asked for single events ordered by start, in the window, with q and maxResults", async (t) => {
  const { backend, fake } = await setup(t);
  await backend.listEvents(window("en.usa#holiday@group.v.calendar.google.com", ...JAN, { query: "new year", maxResults: 7 }));
  const url = new URL(fake.requests[0]?.url ?? "", "http://x");
  assert.equal(url.pathname, "/calendar/v3/calendars/en.usa%23holiday%40group.v.calendar.google.com/events");
  assert.deepEqual(Object.fromEntries(url.searchParams), { timeMin: JAN[0], timeMax: JAN[1], singleEvents: "true", orderBy: "startTime", q: "new year", maxResults: "7" });
  assert.deepEqual(fake.refused, []);
});

test("listCalendars reads the recorded calendarList, pages through it, and names the primary calendar `primary`", async (t) => {
  const { backend, fake } = await setup(t);
  fake.data.pageSize = 4;
  const calendars = await backend.listCalendars();
  assert.deepEqual(calendars.map((c) => [c.id, c.summary, c.primary]), [
    ["jcrowgey@uw.edu", "jcrowgey@uw.edu", false],
    ["google.com_jqv7qt9iifsaj94cuknckrabd8@group.calendar.google.com", "Google Code Jam", false],
    ["primary", "joshuacrowgey@gmail.com", true],
    ["#contacts@group.v.calendar.google.com", "Contacts", false],
    ["en.usa#holiday@group.v.calendar.google.com", "Holidays in United States", false],
    ["i_71.23.40.78#sunrise@group.v.calendar.google.com", "Sunrise/Sunset: Seattle", false],
  ]);
  assert.equal(fake.requests.length, 2, "two pages");
  assert.deepEqual([fake.problems, fake.refused], [[], []]);
});

type StatusRow = [status: number, body: string, expected: Expected];

const STATUS_ROWS: StatusRow[] = [
  [400, '{"error":{"code":400,"message":"Bad Request"}}', { tag: "invalid-input", message: "(400): Bad Request" }],
  [401, '{"error":{"code":401,"message":"Invalid Credentials"}}', { tag: "denied", reason: "token-rejected" }],
  [403, '{"error":{"code":403,"message":"Calendar usage limits exceeded."}}', { tag: "denied", reason: "provider-forbidden", message: "usage limits" }],
  [404, '{"error":{"code":404,"message":"Not Found"}}', { tag: "not-found" }],
  [410, '{"error":{"code":410,"message":"Gone"}}', { tag: "io", message: "(410)" }],
  [429, "", { tag: "io", message: "rate limiting" }],
  [503, "<html>backend</html>", { tag: "io", message: "(503): no error message" }],
  [200, "not json", { tag: "io", message: "invalid JSON" }],
  [200, "[]", { tag: "io", message: "not an object" }],
  [200, '{"items":[{"summary":"no id or start"}]}', { tag: "io", message: "malformed" }],
];

for (const [status, body, expected] of STATUS_ROWS) {
  test(`Google answering ${status} ${body.slice(0, 24)} is ${expected.tag}${expected.reason ? ` ${expected.reason}` : ""}`, async () => {
    const backend = new GoogleCalendarBackend({ token: async () => "t", fetch: async () => new Response(body, { status }) });
    await rejectsWith(backend.listEvents(window("primary", ...JAN)), expected);
  });
}

test("control: a well-formed 200 beside the status rows maps to events", async () => {
  const item = { id: "e1", summary: "s", start: { date: "2026-01-05" }, end: { date: "2026-01-06" }, attendees: [{ email: "a@example.com" }, { displayName: "no email" }] };
  const backend = new GoogleCalendarBackend({ token: async () => "t", fetch: async () => new Response(JSON.stringify({ items: [item] })) });
  assert.deepEqual(await backend.listEvents(window("primary", ...JAN)), [
    { id: "e1", calendarId: "primary", summary: "s", description: undefined, location: undefined, start: { date: "2026-01-05" }, end: { date: "2026-01-06" }, allDay: true, recurringEventId: undefined, attendees: ["a@example.com"], status: undefined },
  ]);
});

test("an answer over the size cap, a network failure and a timeout are io errors", async () => {
  const big = new GoogleCalendarBackend({ token: async () => "t", maxResponseBytes: 10, fetch: async () => new Response('{"items":[], "padding": "xxxxxxxx"}') });
  await rejectsWith(big.listEvents(window("primary", ...JAN)), { tag: "io", message: "byte limit" });
  const down = new GoogleCalendarBackend({ token: async () => "t", fetch: async () => { throw new TypeError("fetch failed"); } });
  await rejectsWith(down.listEvents(window("primary", ...JAN)), { tag: "io", message: "could not be reached" });
  const slow = new GoogleCalendarBackend({ token: async () => "t", timeoutMs: 20, fetch: (_u, init) => new Promise((_r, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason))) });
  // AbortSignal.timeout's timer does not hold the event loop open; a real socket would.
  const hold = setTimeout(() => undefined, 5_000);
  await rejectsWith(slow.listEvents(window("primary", ...JAN)), { tag: "io", message: "timed out" });
  clearTimeout(hold);
});

test("a page-token loop is cut off: the same token twice ends the listing", async () => {
  let calls = 0;
  const page = { items: [{ id: "e", start: { date: "2026-01-05" }, end: { date: "2026-01-06" } }], nextPageToken: "again" };
  const backend = new GoogleCalendarBackend({ token: async () => "t", fetch: async () => (calls++, new Response(JSON.stringify(page))) });
  assert.equal((await backend.listEvents(window("primary", ...JAN))).length, 2);
  assert.equal(calls, 2);
});

test("baseUrl must not send the token in clear text off the machine", () => {
  const make = (baseUrl: string) => () => new GoogleCalendarBackend({ token: async () => "t", baseUrl });
  for (const bad of ["http://www.googleapis.com/calendar/v3/", "ftp://x/", "not a url", "https://user:pw@www.googleapis.com/calendar/v3/", "https://x/?key=1"]) {
    assert.throws(make(bad), InvalidInputError, bad);
  }
  for (const good of ["https://www.googleapis.com/calendar/v3/", "https://proxy.example.com/calendar/v3", "http://127.0.0.1:8080/calendar/v3/", "http://localhost/x/"]) {
    assert.doesNotThrow(make(good), good);
  }
});

test("the fake refuses what Google would: an unknown parameter, a bad type, an unknown body field, a missing start", async (t) => {
  const { fake } = await setup(t);
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(path, fake.baseUrl), { ...init, headers: { authorization: `Bearer ${fake.token}`, "content-type": "application/json" } });
    return { status: res.status, body: (await res.json()) as { error?: { message?: string } } };
  };
  const ok = await call("calendars/primary/events?singleEvents=true&orderBy=startTime&maxResults=5");
  assert.equal(ok.status, 200, "control: parameters events.list knows");
  assert.equal((await call("calendars/primary/events?singleEvents=true&pageSize=5")).status, 400);
  assert.match((await call("calendars/primary/events?maxResults=five")).body.error?.message ?? "", /expected an integer/);
  assert.match((await call("calendars/primary/events?timeMin=2026-01-01")).body.error?.message ?? "", /not an RFC 3339 date-time/);
  assert.equal((await call("calendars/primary/events?orderBy=startTime")).status, 400, "orderBy=startTime needs singleEvents");
  const event = { summary: "x", start: { date: "2026-01-05" }, end: { date: "2026-01-06" } };
  assert.equal((await call("calendars/primary/events", { method: "POST", body: JSON.stringify(event) })).status, 200, "control: a valid Event");
  assert.match((await call("calendars/primary/events", { method: "POST", body: JSON.stringify({ ...event, colour: "red" }) })).body.error?.message ?? "", /Event\.colour: unknown field/);
  assert.match((await call("calendars/primary/events", { method: "POST", body: JSON.stringify({ ...event, start: undefined }) })).body.error?.message ?? "", /Event\.start: required by calendar\.events\.insert/);
  assert.match((await call("calendars/primary/events", { method: "POST", body: JSON.stringify({ ...event, attendees: [{ displayName: "x" }] }) })).body.error?.message ?? "", /email: required/);
  assert.equal((await call("calendars/primary/evnts")).status, 404, "a path no method has");
  assert.equal((await fetch(new URL("users/me/calendarList", fake.baseUrl))).status, 401, "no token");
});

test("the fake checks its own answers: a field the 2018 schema lacks fails the request", async (t) => {
  const { fake, backend } = await setup(t);
  // `eventType` exists in today's API but not in the recorded discovery document.
  fake.data.events.get(fake.data.primaryId)?.push({ id: "e1", status: "confirmed", eventType: "default", start: { date: "2026-01-05" }, end: { date: "2026-01-06" } });
  await rejectsWith(backend.listEvents(window("primary", ...JAN)), { tag: "io", message: "(500)" });
  assert.deepEqual(fake.problems, ["Events.items[0].eventType: unknown field"]);
  fake.problems.length = 0;
  delete fake.data.events.get(fake.data.primaryId)?.[0]?.eventType;
  assert.equal((await backend.listEvents(window("primary", ...JAN))).length, 1, "control: without it");
  assert.deepEqual(fake.problems, []);
});
