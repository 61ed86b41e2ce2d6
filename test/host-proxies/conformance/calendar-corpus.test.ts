/**
 * Every calendar file under test/fixtures, listed through the ics backend and compared with an
 * independent parse (node-ical, whose recurrence expansion is rrule-temporal, not ical.js).
 * Occurrences are compared as `summary|start` in a window from the first DTSTART to a year after
 * the last. Where they disagree the difference must be one hand-checked in
 * _calendar-expected.ts (and explained in docs/calendar-mail-conformance.md); a new or vanished
 * disagreement fails. A file the backend reads only in part must say so in warnings.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { test } from "node:test";
import { IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { CalendarEvent, CalendarWarning } from "../../../host-proxies/calendar/index.js";
import { CALENDAR_EXPECTED } from "./_calendar-expected.js";
import { corpusFiles, writeFound } from "./_corpus.js";
import type { Disagreement } from "./_corpus.js";

const require = createRequire(import.meta.url);
const ical = require("node-ical") as {
  sync: { parseICS(text: string): Record<string, NodeIcalComponent> };
  expandRecurringEvent(event: NodeIcalComponent, o: { from: Date; to: Date }): Array<{ start: Date; isFullDay: boolean; summary: string }>;
};
interface NodeIcalComponent {
  type?: string;
  start?: Date;
  summary?: string | { val: string };
}

const DAY = 86_400_000;
const FOLDERS = ["ical", "ical-corpus"];

interface Compared extends Disagreement {
  warnings: CalendarWarning[];
}

async function compare(path: string): Promise<Compared> {
  const text = await readFile(path, "utf8");
  let reference: Set<string>;
  let window: { min: number; max: number };
  try {
    const parsed = ical.sync.parseICS(text);
    const vevents = Object.values(parsed).filter((c) => c?.type === "VEVENT");
    const starts = vevents.map((e) => e.start?.getTime()).filter((t): t is number => t !== undefined && Number.isFinite(t));
    window = starts.length === 0 ? { min: Date.UTC(2000, 0, 1), max: Date.UTC(2001, 0, 1) } : { min: Math.min(...starts) - DAY, max: Math.max(...starts) + 366 * DAY };
    reference = new Set();
    for (const event of vevents) {
      let instances: ReturnType<typeof ical.expandRecurringEvent> = [];
      try {
        instances = ical.expandRecurringEvent(event, { from: new Date(window.min), to: new Date(window.max - 1) });
      } catch {
        // node-ical gives up on this event; only the backend's listing counts for it.
      }
      for (const i of instances) reference.add(`${summaryOf(i.summary)}|${i.isFullDay ? localDate(i.start) : i.start.toISOString()}`);
    }
  } catch {
    reference = new Set();
    window = { min: Date.UTC(2000, 0, 1), max: Date.UTC(2001, 0, 1) };
  }
  const warnings: CalendarWarning[] = [];
  const backend = new IcsFileBackend(dirname(path));
  const id = path.slice(dirname(path).length + 1).replace(/\.ics$/, "");
  let listed: CalendarEvent[] = [];
  try {
    listed = await backend.listEvents(
      { calendarId: id, timeMin: new Date(window.min).toISOString(), timeMax: new Date(window.max).toISOString(), query: undefined, maxResults: 100_000 },
      { onWarning: (w) => warnings.push(w) },
    );
  } catch (error) {
    warnings.push({ reason: `refused: ${(error as Error).message}` });
  }
  const ours = new Set(listed.filter((e) => startMs(e) >= window.min).map((e) => `${e.summary}|${e.start.date ?? new Date(e.start.dateTime ?? "").toISOString()}`));
  const inWindow = (key: string) => {
    const at = Date.parse(key.slice(key.lastIndexOf("|") + 1));
    return at >= window.min && at < window.max;
  };
  return {
    reference: [...reference].filter((k) => inWindow(k) && !ours.has(k)).sort(),
    ours: [...ours].filter((k) => !reference.has(k)).sort(),
    warnings,
  };
}

function startMs(e: CalendarEvent): number {
  return Date.parse(e.start.date ?? e.start.dateTime ?? "");
}

function summaryOf(summary: unknown): string {
  if (typeof summary === "object" && summary !== null && "val" in summary) return String((summary as { val: unknown }).val);
  return typeof summary === "string" ? summary : "";
}

/** node-ical places an all-day start at local midnight. */
function localDate(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

test("calendar conformance: every file under test/fixtures agrees with node-ical, or disagrees as hand-checked", async (t) => {
  const files = await corpusFiles(FOLDERS, ".ics");
  assert.ok(files.length >= 50, `only ${files.length} calendar files found`);
  let disagreements = 0;
  const found: Record<string, Disagreement> = {};
  const unexplained: string[] = [];
  for (const file of files) {
    const got = await compare(file.path);
    const count = got.reference.length + got.ours.length;
    disagreements += count;
    if (count > 0) found[file.name] = { reference: got.reference, ours: got.ours };
    const expected = CALENDAR_EXPECTED[file.name];
    const same = JSON.stringify([got.reference, got.ours]) === JSON.stringify([expected?.reference ?? [], expected?.ours ?? []]);
    if (!same) unexplained.push(`${file.name}: reference-only ${JSON.stringify(got.reference.slice(0, 5))}, ours-only ${JSON.stringify(got.ours.slice(0, 5))}`);
    // Nothing dropped silently: an occurrence node-ical lists and the backend does not is either
    // warned about or hand-checked as the reference's mistake.
    if (got.reference.length > 0 && got.warnings.length === 0 && expected?.referenceWrong !== true) {
      unexplained.push(`${file.name}: ${got.reference.length} occurrence(s) missing without a warning`);
    }
  }
  t.diagnostic(`calendar conformance: ${files.length} files, ${disagreements} occurrence disagreements with node-ical in ${Object.keys(found).length} files, each hand-checked`);
  writeFound(found);
  assert.deepEqual(unexplained, []);
  assert.deepEqual(Object.keys(CALENDAR_EXPECTED).filter((name) => !files.some((f) => f.name === name)), [], "every expectation names a file that exists");
});
