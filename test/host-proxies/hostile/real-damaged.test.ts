/**
 * Real calendar and mail files damaged as files get damaged — cut short, overwritten with junk —
 * and real absurd recurrences, through the real proxies and a parse pool with a deadline. Each
 * ends as a listing that says what it could not read, or a clear tool error naming the
 * calendar; never a hang, a crash or a silent OK. Each row beside its undamaged control.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ParsePool } from "../../../host-proxies/_parse/index.js";
import { createCalendarProxy, IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { CalendarWarning } from "../../../host-proxies/calendar/index.js";
import { createGmailProxy, MaildirBackend } from "../../../host-proxies/gmail/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";

const FIXTURES = join(PROJECT_ROOT, "test", "fixtures");
// The wall-clock backstop is short here so that a case ends within its test's timeout however busy the machine.
const pool = new ParsePool({ cpuMs: 5000, deadlineMs: 12_000, size: 1 });
const work = mkdtempSync(join(tmpdir(), "clawhive-damaged-"));
after(async () => {
  await pool.close();
  rmSync(work, { recursive: true, force: true });
});

/** Deterministic junk (xorshift), so a failure can be reproduced. */
function junk(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const real = (path: string) => readFileSync(join(FIXTURES, path));
const cut = (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2));

type Listing = { ok: true; count: number; warnings: CalendarWarning[] } | { ok: false; error: unknown };

let n = 0;
async function listCalendar(bytes: Buffer, from: string, to: string): Promise<Listing> {
  const id = `cal${n++}`;
  writeFileSync(join(work, `${id}.ics`), bytes);
  const warnings: CalendarWarning[] = [];
  const proxy = createCalendarProxy(new IcsFileBackend(work, { parsePool: pool }), { calendars: [id], onWarning: (w) => warnings.push(w) });
  try {
    const events = await proxy.listEvents({ calendarId: id, timeMin: from, timeMax: to, maxResults: 2500 });
    return { ok: true, count: events.length, warnings };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A clear tool error: an `io` host error that names the calendar and says what to think of the file. */
function assertClearError(listing: Listing): void {
  assert.equal(listing.ok, false, "expected a tool error");
  const error = (listing as { error: unknown }).error;
  assert.ok(error instanceof HostProxyError, String(error));
  assert.equal(error.hostError.tag, "io");
  assert.match(error.message, /^calendar cal\d+: (not a readable iCalendar file|not an iCalendar file|the input|event )/);
}

const calendars: Array<{ name: string; file: string; from: string; to: string }> = [
  { name: "Outlook 2012 export", file: "ical-corpus/node-ical-Office-2012-owa.ics", from: "2020-10-01T00:00:00Z", to: "2020-12-01T00:00:00Z" },
  { name: "Thunderbird export", file: "ical/thunderbird-vtimezone-valarm.ics", from: "2024-10-01T00:00:00Z", to: "2024-11-01T00:00:00Z" },
  { name: "Exchange 2010 export", file: "ical/exchange2010-ms-timezones.ics", from: "2020-06-01T00:00:00Z", to: "2020-07-01T00:00:00Z" },
  { name: "biweekly series with bad EXDATEs", file: "ical-corpus/node-ical-biweekly-exdate-until.ics", from: "2017-08-01T00:00:00Z", to: "2018-08-01T00:00:00Z" },
];

for (const c of calendars) {
  test(`${c.name}: whole, it lists (control)`, async () => {
    const listing = await listCalendar(real(c.file), c.from, c.to);
    assert.ok(listing.ok, String((listing as { error?: unknown }).error));
    assert.ok(listing.count > 0, "the whole file lists its events");
  });
  test(`${c.name}: cut in half, a clear tool error`, async () => assertClearError(await listCalendar(cut(real(c.file)), c.from, c.to)));
  test(`${c.name}: its second half overwritten with junk, a clear tool error`, async () => {
    const bytes = Buffer.from(real(c.file));
    junk(bytes.length - Math.floor(bytes.length / 2), 7).copy(bytes, Math.floor(bytes.length / 2));
    assertClearError(await listCalendar(bytes, c.from, c.to));
  });
}

test("binary junk: a clear tool error", async () => assertClearError(await listCalendar(junk(64 * 1024, 42), "2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z")));

test("a DURATION of 10^18 weeks (collective/icalendar invalid_duration.ics) is dropped with a warning naming the UID; the event lists", async () => {
  const listing = await listCalendar(real("hostile/ics/icalendar-invalid_duration.ics"), "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z");
  assert.ok(listing.ok, String((listing as { error?: unknown }).error));
  assert.equal(listing.count, 1);
  assert.deepEqual(listing.warnings.map((w) => w.uid), ["invalid-duration@example.com"]);
});

test("control: a 100-day DURATION is kept", async () => {
  const text = real("hostile/ics/icalendar-invalid_duration.ics").toString("utf8").replace("P999999999999999999W", "P100D");
  const listing = await listCalendar(Buffer.from(text), "2024-03-01T00:00:00Z", "2024-03-02T00:00:00Z");
  assert.ok(listing.ok);
  assert.deepEqual([listing.count, listing.warnings], [1, []]);
});

test("an endless SECONDLY rule over a year: a clear error naming the event, not a hang", async () => {
  const text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:every-second\r\nDTSTART:20200101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=SECONDLY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
  const listing = await listCalendar(Buffer.from(text), "2020-06-01T00:00:00Z", "2020-06-02T00:00:00Z");
  assertClearError(listing);
  // Which bound stops it first depends on the machine: the per-series cap, the CPU budget or (on a machine too busy to give it that) the backstop.
  assert.match(String((listing as { error: Error }).error.message), /"every-second" recurs more than 100000 times|needed more than 5000 ms of CPU time|took longer than 12000 ms \(wall clock\)/);
});

test("mail cut in half or overwritten with junk still reads as a message, and says so when its Date is gone", async () => {
  const dir = join(work, "mail");
  for (const sub of ["cur", "new", "tmp"]) mkdirSync(join(dir, sub), { recursive: true });
  const whole = real("mail-corpus/mail-rfc2822-example01.eml");
  writeFileSync(join(dir, "cur", "1.whole:2,S"), whole);
  writeFileSync(join(dir, "cur", "2.junk:2,S"), Buffer.concat([Buffer.from("Subject: junk\r\n\r\n"), junk(32 * 1024, 9)]));
  const warnings: string[] = [];
  const proxy = createGmailProxy(new MaildirBackend(dir, { parsePool: pool }), { labels: ["INBOX"], onWarning: (w) => warnings.push(w.reason) });
  const listed = await proxy.listMessages({ label: "INBOX", query: undefined, maxResults: 10, pageToken: undefined });
  assert.deepEqual(listed.messages.map((m) => m.subject).sort(), ["Saying Hello", "junk"]);
  assert.deepEqual(warnings, ["it has no Date header; the date shown is the delivery time"]);
});
