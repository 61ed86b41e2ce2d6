/**
 * Every hostile file (test/fixtures/hostile/, provenance in its PROVENANCE.md) and every
 * generated one goes through the real proxy and backend, parsed in a parse worker: each ends
 * as a listing or a clear tool error within the parse budget, never a hang or a crash, and
 * the worker pool keeps serving ordinary files afterwards (the control row after each).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ParsePool } from "../../../host-proxies/_parse/index.js";
import { createCalendarProxy, IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import { createGmailProxy, MaildirBackend } from "../../../host-proxies/gmail/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { GENERATED_ICS, GENERATED_MAIL } from "./_generated.js";

const HOSTILE = join(PROJECT_ROOT, "test", "fixtures", "hostile");
const BUDGET_MS = 5000;
/** The wall-clock backstop, short here so that a case ends within its test's timeout however busy the machine. */
const BACKSTOP_MS = 12_000;
const pool = new ParsePool({ cpuMs: BUDGET_MS, deadlineMs: BACKSTOP_MS });
const work = mkdtempSync(join(tmpdir(), "clawhive-hostile-"));
after(async () => {
  await pool.close();
  rmSync(work, { recursive: true, force: true });
});

const CONTROL_ICS = Buffer.from(
  "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:control@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T090000Z\r\nDTEND:20260301T100000Z\r\nSUMMARY:control\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
);
const CONTROL_MAIL = Buffer.from("From: a@example.com\r\nTo: b@example.com\r\nSubject: control\r\nMessage-ID: <control@test>\r\nContent-Type: text/html\r\n\r\n<p>Hello <b>there</b></p>\r\n");

type Outcome = { ok: true; count: number } | { ok: false; error: HostProxyError };

/** A tool error a guest can show: a host error case with a short message naming what failed. */
function assertClear(outcome: Outcome, names: RegExp): void {
  if (outcome.ok) return;
  const { error } = outcome;
  assert.ok(error instanceof HostProxyError, `a host error, got ${String(error)}`);
  assert.ok(["io", "invalid-input", "not-found"].includes(error.hostError.tag), error.hostError.tag);
  assert.match(error.message, names);
  assert.ok(error.message.length < 600, `a short message: ${error.message.length} chars`);
}

let dirs = 0;
async function listCalendar(bytes: Buffer): Promise<Outcome> {
  const dir = join(work, `cal${dirs++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "primary.ics"), bytes);
  const proxy = createCalendarProxy(new IcsFileBackend(dir, { parsePool: pool }), { calendars: ["primary"] });
  try {
    const events = await proxy.listEvents({ calendarId: "primary", timeMin: "2026-01-01T00:00:00Z", timeMax: "2027-01-01T00:00:00Z", query: undefined, maxResults: 50 });
    return { ok: true, count: events.length };
  } catch (error) {
    return { ok: false, error: error as HostProxyError };
  }
}

async function readMail(bytes: Buffer): Promise<Outcome> {
  const root = join(work, `mail${dirs++}`);
  for (const sub of ["cur", "new", "tmp"]) mkdirSync(join(root, sub), { recursive: true });
  writeFileSync(join(root, "cur", "1767225600.hostile.host:2,S"), bytes);
  const proxy = createGmailProxy(new MaildirBackend(root, { parsePool: pool }), { labels: ["INBOX"] });
  try {
    const { messages } = await proxy.listMessages({ label: "INBOX", query: undefined, maxResults: 10, pageToken: undefined });
    for (const m of messages) await proxy.getMessage(m.id);
    return { ok: true, count: messages.length };
  } catch (error) {
    return { ok: false, error: error as HostProxyError };
  }
}

const files = (sub: string) => readdirSync(join(HOSTILE, sub)).sort().map((f) => [f, () => readFileSync(join(HOSTILE, sub, f))] as const);
const ICS_CASES = [...files("ics"), ...Object.entries(GENERATED_ICS).map(([name, make]) => [`generated: ${name}`, make] as const)];
const MAIL_CASES = [...files("mail"), ...Object.entries(GENERATED_MAIL).map(([name, make]) => [`generated: ${name}`, make] as const)];

for (const [name, bytes] of ICS_CASES) {
  test(`calendar: ${name} lists or fails clearly within the parse budget; control: an ordinary file lists after it`, { timeout: 3 * BACKSTOP_MS }, async (t) => {
    const outcome = await listCalendar(bytes());
    t.diagnostic(outcome.ok ? `listed ${outcome.count}` : `error: ${outcome.error.message.slice(0, 200)}`);
    assertClear(outcome, /^calendar primary: /);
    const control = await listCalendar(CONTROL_ICS);
    assert.deepEqual(control, { ok: true, count: 1 });
  });
}

for (const [name, bytes] of MAIL_CASES) {
  test(`mail: ${name} reads or fails clearly within the parse budget; control: an ordinary message reads after it`, { timeout: 3 * BACKSTOP_MS }, async (t) => {
    const outcome = await readMail(bytes());
    t.diagnostic(outcome.ok ? `read ${outcome.count}` : `error: ${outcome.error.message.slice(0, 200)}`);
    assertClear(outcome, /^gmail: /);
    const control = await readMail(CONTROL_MAIL);
    assert.deepEqual(control, { ok: true, count: 1 });
  });
}
