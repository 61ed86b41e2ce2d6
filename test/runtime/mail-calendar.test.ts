import assert from "node:assert/strict";
import { copyFile, cp, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";

// The embedded defaults (a Maildir, .ics files) on the real fixtures, through the real plugins.
const FIXTURES = join(PROJECT_ROOT, "test", "fixtures");
let runtime: Runtime;
let dispose: () => Promise<void>;
let place: string;
const output = (o: unknown) => (o as { output: Record<string, unknown> }).output;
const reason = (o: unknown) => (o as { error?: { denial?: { reason: string } } }).error?.denial?.reason;

before(async () => {
  place = await tempDir("clawhive-pim-");
  await cp(join(FIXTURES, "mail", "maildir"), join(place, "mail"), { recursive: true });
  await mkdir(join(place, "calendars"));
  await copyFile(join(FIXTURES, "ical", "google-apple-structured-location.ics"), join(place, "calendars", "primary.ics"));
  await copyFile(join(FIXTURES, "ical", "zimbra-recur-instances.ics"), join(place, "calendars", "team.ics"));
  ({ runtime, dispose } = await testRuntime({
    pluginDirs: [join(PROJECT_ROOT, "plugins", "mail"), join(PROJECT_ROOT, "plugins", "calendar")],
    mail: { backend: "maildir", dir: join(place, "mail") },
    calendar: { backend: "ics", dir: join(place, "calendars") },
  }));
  await runtime.defineAgent({
    name: "pa",
    description: "mail and calendar assistant",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "mail", version: "*" }, { name: "calendar", version: "*" }],
    grants: { "gmail.read": { labels: ["INBOX"] }, "calendar.read": { calendars: ["primary"] }, "calendar.add": { calendars: ["primary"] } },
    approvals: { lower_risk: [{ tool: "calendar.add_event", to: "safe", acknowledged: true }] },
  });
});
after(async () => {
  await dispose();
  await rm(place, { recursive: true, force: true });
});

test("list_unread reads the Maildir: the one message in new/ without the S flag, its RFC 2047 subject decoded", async () => {
  const run = await runtime.startRun({ agent: "pa" });
  const listed = output(await run.callTool("mail.list_unread", {})) as { messages: Array<{ id: string; subject: string }> };
  assert.equal(listed.messages.length, 1);
  assert.equal(listed.messages[0]?.subject, "Nodemailer is unicode friendly ✔ (1476358788189)");
  const message = output(await run.callTool("mail.read_message", { id: listed.messages[0]!.id })) as { attachments: unknown[]; text?: string; body?: string };
  assert.ok(message.attachments.length >= 2, JSON.stringify(message).slice(0, 300));
  await run.end();
});

test("a label outside the grant is denied; control: INBOX above", async () => {
  const run = await runtime.startRun({ agent: "pa" });
  const outcome = await run.callTool("mail.list_unread", { label: "Work" });
  assert.equal(outcome.status, "error");
  assert.equal(outcome.status === "error" && typeof reason(outcome), "string");
  assert.match(JSON.stringify(outcome), /Work/);
  await run.end();
});

test("list_events expands a weekly recurrence in its time zone; another calendar is denied", async () => {
  const run = await runtime.startRun({ agent: "pa" });
  const listed = output(await run.callTool("calendar.list_events", { calendar_id: "primary", from: "2016-11-07", to: "2016-11-12" })) as {
    events: Array<{ summary: string; start: { dateTime?: string; date_time?: string } | string }>;
  };
  const syncs = listed.events.filter((e) => e.summary === "Daily Sync");
  assert.equal(syncs.length, 5, JSON.stringify(listed).slice(0, 400));
  const denied = await run.callTool("calendar.list_events", { calendar_id: "team", from: "2016-11-07" });
  assert.equal(denied.status, "error");
  await run.end();
});

test("add_event writes to the granted calendar and reads back; another calendar is denied", async () => {
  const run = await runtime.startRun({ agent: "pa" });
  const added = await run.callTool("calendar.add_event", {
    calendar_id: "primary",
    summary: "Planning, Q1 — café",
    start: "2026-12-01T09:00",
    end: "2026-12-01T10:00",
    time_zone: "Europe/Zurich",
  });
  assert.equal(added.status, "ok", JSON.stringify(added));
  const listed = output(await run.callTool("calendar.list_events", { calendar_id: "primary", from: "2026-12-01", to: "2026-12-02" })) as {
    events: Array<{ summary: string }>;
  };
  assert.ok(listed.events.some((e) => e.summary === "Planning, Q1 — café"), JSON.stringify(listed));
  const denied = await run.callTool("calendar.add_event", { calendar_id: "team", summary: "x", start: "2026-12-01" });
  assert.equal(denied.status, "error");
  await run.end();
});
