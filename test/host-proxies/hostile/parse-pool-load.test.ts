/**
 * The parse budget is the parse worker's own CPU time, not the wall clock: a large legitimate
 * calendar (an Apple iCal 1.5 export of 1 321 yearly birthdays, 399 KB) parses while every core
 * is busy with other work and the parse worker runs at a lower priority than that work, so it
 * gets a small share of a core and needs many times its CPU time in wall time — under a
 * wall-clock deadline of the same size it was refused as "malformed or hostile". Control: an
 * endless rule is still refused by the same budget. Its own process (node --test runs each file
 * alone), since it fills the machine for a few seconds.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { availableParallelism, setPriority } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { ParsePool } from "../../../host-proxies/_parse/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";

const FIXTURES = join(PROJECT_ROOT, "test", "fixtures");
const BIRTHDAYS = readFileSync(join(FIXTURES, "ical-corpus", "ical4j-mathBirthdays.ics"));
const ENDLESS = readFileSync(join(FIXTURES, "hostile", "ics", "own-rrule-year-one-daily.ics"));
const ORDINARY = Buffer.from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T090000Z\r\nDTEND:20260301T100000Z\r\nSUMMARY:ordinary\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n");
/** Well above what the birthdays need on a quiet machine (well under a second), far below their wall time here. */
const CPU_MS = 3000;
/** The parse worker's nice value: about a seventh of a core beside one busy thread at 0. */
const LOW_PRIORITY = 8;

const job = (bytes: Uint8Array, from: string, to: string) => ({
  bytes,
  parse: { defaultZone: "UTC", years: { fromYear: 2003, toYear: 2008 }, label: "calendar birthdays" },
  window: { min: Date.parse(from), max: Date.parse(to) },
  calendarId: "birthdays",
  expand: true,
});

function threads(): Set<string> {
  return new Set(readdirSync("/proc/self/task"));
}

/** One spinning thread per core, each saying its thread id; `stop` ends them. */
async function fillEveryCore(): Promise<{ tids: Set<string>; stop: () => Promise<void> }> {
  const spin = `const { parentPort } = require("node:worker_threads");
parentPort.postMessage(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop());
for (;;) {}`;
  const workers = Array.from({ length: availableParallelism() }, () => new Worker(spin, { eval: true }));
  const tids = await Promise.all(workers.map((w) => new Promise<string>((resolve) => w.once("message", resolve))));
  return { tids: new Set(tids), stop: async () => void (await Promise.all(workers.map((w) => w.terminate()))) };
}

test("a 399 KB calendar parses within its CPU budget while the machine is busy; an endless rule is still refused", { skip: process.platform !== "linux" && "the thread CPU clock is Linux's /proc", timeout: 300_000 }, async () => {
  assert.ok(readlinkSync("/proc/thread-self").includes("/task/"));
  const before = threads();
  const pool = new ParsePool({ size: 1, cpuMs: CPU_MS });
  const load = await fillEveryCore();
  let parsers: string[] = [];
  try {
    // The worker is made by its first job; every thread that appeared since, but the spinners, is niced.
    assert.equal((await pool.run("calendar.events", job(ORDINARY, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"), "calendar t")).events.length, 1);
    parsers = [...threads()].filter((tid) => !before.has(tid) && !load.tids.has(tid));
    assert.ok(parsers.length > 0, "the parse worker's thread is found");
    for (const tid of parsers) setPriority(Number(tid), LOW_PRIORITY);

    const listed = await pool.run("calendar.events", job(BIRTHDAYS, "2004-01-01T00:00:00Z", "2005-01-01T00:00:00Z"), "calendar birthdays");
    // 1 318 series begin in 2004 (three more in 2005); three of them EXDATE their first date.
    assert.equal(listed.events.length, 1315, "every birthday of 2004, once");
    const hollerith = listed.events.filter((e) => e.summary === "1860 Herman Hollerith");
    assert.deepEqual(hollerith.map((e) => e.start.date), ["2004-02-29"]);
  } finally {
    await load.stop();
    // Back to the ordinary priority (the test runs as a user who may raise it, or not at all).
    for (const tid of parsers) {
      try {
        setPriority(Number(tid), 0);
      } catch {
        // Not allowed to: the control below only takes longer.
      }
    }
  }
  try {
    await assert.rejects(
      pool.run("calendar.events", job(ENDLESS, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"), "calendar t"),
      (e: unknown) => e instanceof HostProxyError && e.hostError.tag === "io" && new RegExp(`calendar t: the input needed more than ${CPU_MS} ms of CPU time to parse and was stopped`).test(e.message),
    );
  } finally {
    await pool.close();
  }
});
