/**
 * The parse pool: a job past its deadline is stopped and its worker replaced while other jobs
 * go on; errors a job raises arrive as the same host error; a closed pool refuses work.
 * Each refusal sits beside a control that passes.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ParsePool } from "../../../host-proxies/_parse/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";

const HOSTILE = join(PROJECT_ROOT, "test", "fixtures", "hostile", "ics");
const ORDINARY = Buffer.from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T090000Z\r\nDTEND:20260301T100000Z\r\nSUMMARY:ordinary\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n");
const WINDOW = { min: Date.parse("2026-01-01T00:00:00Z"), max: Date.parse("2027-01-01T00:00:00Z") };

const job = (bytes: Uint8Array) => ({
  bytes,
  parse: { defaultZone: "UTC", years: { fromYear: 2025, toYear: 2027 }, label: "calendar t" },
  window: WINDOW,
  calendarId: "t",
  expand: true,
});

test("a job past its CPU budget fails clearly; a job queued behind it on a one-worker pool still runs", { timeout: 60_000 }, async () => {
  const pool = new ParsePool({ size: 1, cpuMs: 1500 });
  try {
    const slow = pool.run("calendar.events", job(readFileSync(join(HOSTILE, "own-rrule-year-one-daily.ics"))), "calendar t");
    const queued = pool.run("calendar.events", job(ORDINARY), "calendar t");
    await assert.rejects(slow, (e: unknown) => e instanceof HostProxyError && e.hostError.tag === "io" && /needed more than 1500 ms of CPU time to parse and was stopped/.test(e.message));
    assert.deepEqual((await queued).events.map((e) => e.summary), ["ordinary"]);
  } finally {
    await pool.close();
  }
});

test("an error the job raises arrives as that host error; control: a good file on the same worker", { timeout: 60_000 }, async () => {
  const pool = new ParsePool({ size: 1 });
  try {
    await assert.rejects(pool.run("calendar.events", job(Buffer.from("not a calendar\r\n")), "calendar t"), (e: unknown) => e instanceof HostProxyError && /not an iCalendar file/.test(e.message));
    assert.equal((await pool.run("calendar.events", job(ORDINARY), "calendar t")).events.length, 1);
  } finally {
    await pool.close();
  }
});

test("HTML to text in a worker; control: plain text passes as it is", { timeout: 60_000 }, async () => {
  const pool = new ParsePool({ size: 1 });
  try {
    assert.equal(await pool.run("mail.text", { plain: undefined, html: "<p>Hello <b>there</b></p>" }, "gmail: t"), "Hello there");
    assert.equal(await pool.run("mail.text", { plain: "as sent\r\n", html: "<p>ignored</p>" }, "gmail: t"), "as sent");
  } finally {
    await pool.close();
  }
});

test("a closed pool refuses work with a clear error; control: it worked before", { timeout: 60_000 }, async () => {
  const pool = new ParsePool({ size: 1 });
  assert.equal((await pool.run("calendar.events", job(ORDINARY), "calendar t")).events.length, 1);
  await pool.close();
  await assert.rejects(pool.run("calendar.events", job(ORDINARY), "calendar t"), /calendar t: the parser is shut down/);
});
