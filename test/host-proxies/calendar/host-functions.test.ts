/** `calendarHostFunctions`: the bridge table, and the guest's records checked at the edge. */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { CALENDAR_HOST_FUNCTION_NAMES, calendarHostFunctions, createCalendarProxy, IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { CalendarEvent } from "../../../host-proxies/calendar/index.js";
import { rejectsWith, tempDir } from "./_fixtures.js";

type HostFunction = (args: unknown[]) => Promise<unknown>;

async function table(t: Parameters<typeof tempDir>[0]): Promise<Record<string, HostFunction>> {
  const dir = await tempDir(t);
  await writeFile(join(dir, "team.ics"), "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nEND:VCALENDAR\r\n");
  await writeFile(join(dir, "secret.ics"), "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nEND:VCALENDAR\r\n");
  return calendarHostFunctions(createCalendarProxy(new IcsFileBackend(dir), { calendars: ["primary", "team"] }));
}

function fn(t: Record<string, HostFunction>, name: string): HostFunction {
  const f = t[name];
  assert.ok(f !== undefined, name);
  return f;
}

/** Records exactly as jco lifts them: every field present, options undefined. */
const listRecord = (extra: Record<string, unknown> = {}) => ({ calendarId: "primary", timeMin: "2026-01-01T00:00:00Z", timeMax: "2026-02-01T00:00:00Z", query: undefined, maxResults: undefined, ...extra });
const time = (extra: Record<string, unknown>) => ({ date: undefined, dateTime: undefined, timeZone: undefined, ...extra });
const eventRecord = (extra: Record<string, unknown> = {}) => ({
  calendarId: "primary", summary: "Sync", description: undefined, location: undefined, attendees: ["ana@example.com"],
  start: time({ dateTime: "2026-01-15T09:00:00", timeZone: "Europe/Zurich" }), end: time({ dateTime: "2026-01-15T10:00:00", timeZone: "Europe/Zurich" }), ...extra,
});

test("calendarHostFunctions: one function per WIT import, on a frozen null-prototype table", async (t) => {
  const functions = await table(t);
  assert.deepEqual(Object.keys(functions), [...CALENDAR_HOST_FUNCTION_NAMES]);
  for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) assert.equal(functions[name], undefined, name);
  assert.ok(Object.isFrozen(functions));
});

test("calendarHostFunctions: jco-shaped records in, WIT records out, through the grant", async (t) => {
  const functions = await table(t);
  assert.deepEqual(await fn(functions, "listCalendars")([]), [{ id: "primary", summary: "primary", primary: true }, { id: "team", summary: "team", primary: false }]);
  const added = (await fn(functions, "addEvent")([eventRecord()])) as CalendarEvent;
  assert.equal(added.start.dateTime, "2026-01-15T09:00:00+01:00");
  assert.deepEqual(await fn(functions, "listEvents")([listRecord()]), [added]);
  await rejectsWith(fn(functions, "listEvents")([listRecord({ calendarId: "secret" })]), { tag: "denied", reason: "calendar-not-granted" });
});

type ArgRow = [why: string, name: string, args: unknown[], message: string];

const ARG_ROWS: ArgRow[] = [
  ["listCalendars with an argument", "listCalendars", [1], "expected 0 argument(s)"],
  ["listEvents with no argument", "listEvents", [], "expected 1 argument(s)"],
  ["listEvents with two", "listEvents", [listRecord(), listRecord()], "expected 1 argument(s)"],
  ["a request that is a string", "listEvents", ["primary"], "request must be a record"],
  ["a request that is null", "listEvents", [null], "request must be a record"],
  ["an unknown request field", "listEvents", [listRecord({ pageToken: "x" })], "request has no field \"pageToken\""],
  ["a numeric calendarId", "listEvents", [listRecord({ calendarId: 7 })], "calendarId must be a string"],
  ["maxResults as a float", "listEvents", [listRecord({ maxResults: 1.5 })], "maxResults must be a u32"],
  ["maxResults as a bigint", "listEvents", [listRecord({ maxResults: 10n })], "maxResults must be a u32"],
  ["query as a number", "listEvents", [listRecord({ query: 3 })], "query must be a string"],
  ["attendees not a list", "addEvent", [eventRecord({ attendees: "ana@example.com" })], "attendees must be a list"],
  ["an attendee not a string", "addEvent", [eventRecord({ attendees: [{ email: "ana@example.com" }] })], "attendees[0] must be a string"],
  ["start not a record", "addEvent", [eventRecord({ start: "2026-01-15" })], "start must be a record"],
  ["an unknown event-time field", "addEvent", [eventRecord({ start: { ...time({ date: "2026-01-15" }), offset: 1 } })], "start has no field \"offset\""],
  ["an unknown event field", "addEvent", [eventRecord({ recurrence: ["RRULE:FREQ=DAILY"] })], "event has no field \"recurrence\""],
];

for (const [why, name, args, message] of ARG_ROWS) {
  test(`calendarHostFunctions refuses ${why}`, async (t) => {
    await rejectsWith(fn(await table(t), name)(args), { tag: "invalid-input", message });
  });
}

test("control: the same records, well-formed, are accepted", async (t) => {
  const functions = await table(t);
  await fn(functions, "listEvents")([listRecord({ maxResults: 10, query: "sync" })]);
  await fn(functions, "addEvent")([eventRecord({ calendarId: "team", description: "d", location: "l" })]);
  await fn(functions, "addEvent")([eventRecord({ start: time({ date: "2026-01-15" }), end: time({ date: "2026-01-16" }) })]);
});
