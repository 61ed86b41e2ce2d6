/**
 * A hostile calendar or message sent through a real tool call over the API ends as a clear
 * tool error within the call deadline, while `/health` keeps answering throughout: parsing
 * runs in a parse worker, never on the thread that serves requests. Control: an ordinary
 * calendar and message, through the same server, list and read.
 */
import assert from "node:assert/strict";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { GENERATED_MAIL } from "../host-proxies/hostile/_generated.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "./fixtures.js";

const HOSTILE = join(PROJECT_ROOT, "test", "fixtures", "hostile");
let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Listening;
let place: string;
let token = "";

const CONTROL_ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:ok@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T090000Z\r\nDTEND:20260301T100000Z\r\nSUMMARY:ordinary\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
const CONTROL_MAIL = "From: a@example.com\r\nTo: b@example.com\r\nSubject: ordinary\r\nMessage-ID: <ok@test>\r\nContent-Type: text/html\r\n\r\n<p>Hello</p>\r\n";

before(async () => {
  place = await tempDir("clawhive-hostile-api-");
  for (const box of ["hostile", "ordinary"]) for (const sub of ["cur", "new", "tmp"]) await mkdir(join(place, box, sub), { recursive: true });
  await writeFile(join(place, "hostile", "new", "1767225600.deep.host"), GENERATED_MAIL["HTML nested 100 000 deep"]!());
  await writeFile(join(place, "ordinary", "new", "1767225600.ok.host"), CONTROL_MAIL);
  await mkdir(join(place, "calendars"));
  await copyFile(join(HOSTILE, "ics", "own-rrule-year-one-daily.ics"), join(place, "calendars", "primary.ics"));
  await writeFile(join(place, "calendars", "ordinary.ics"), CONTROL_ICS);
  await startServer(join(place, "hostile"));
});

async function startServer(mailDir: string): Promise<void> {
  ({ runtime, dispose } = await testRuntime({
    pluginDirs: [join(PROJECT_ROOT, "plugins", "mail"), join(PROJECT_ROOT, "plugins", "calendar")],
    mail: { backend: "maildir", dir: mailDir },
    calendar: { backend: "ics", dir: join(place, "calendars") },
  }));
  await runtime.defineAgent({
    name: "pa",
    description: "reads hostile mail and calendars",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "mail", version: "*" }, { name: "calendar", version: "*" }],
    grants: { "gmail.read": { labels: ["INBOX"] }, "calendar.read": { calendars: ["primary", "ordinary"] } },
  });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token = (await tokens.create("client")).token;
  server = await listen(createApp({ runtime, tokens, version: "test" }));
}

async function stopServer(): Promise<void> {
  await server.close();
  await dispose();
}

after(async () => {
  await stopServer();
  await rm(place, { recursive: true, force: true });
});

/** Runs one tool call to its end while asking `/health` over and over; counts answers that came back during the call. */
async function callWatchingHealth(call: { name: string; input: unknown }): Promise<{ outcome: any; answered: number; failed: number }> {
  let running = true;
  let answered = 0;
  let failed = 0;
  const watch = (async () => {
    while (running) {
      const response = await fetch(`${server.base}/health`).catch(() => undefined);
      await response?.text();
      if (!running) break;
      if (response?.status === 200) answered++;
      else failed++;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const { status, body } = await jsonCall(server.base, "POST", "/v1/runs?wait=true", { token, body: { agent: "pa", tool_calls: [call] } });
  running = false;
  await watch;
  assert.equal(status, 201, JSON.stringify(body).slice(0, 400));
  assert.equal(body.run.status, "ended", "the run ends: nothing is left running");
  return { outcome: body.run.outcomes[0], answered, failed };
}

// `mayFinish`: how long the input takes depends on the machine (100 000 nested elements parse in
// about 7 s on a quiet one, past the 10 s deadline on a loaded one); either end is fine as long
// as it comes within the deadline and /health answers meanwhile.
// The parse budget is CPU time; the tool call's own deadline (30 s) is wall time, so on a machine
// too busy to give the parse its budget within 30 s the call's deadline ends it first: as clear.
// On a fast quiet machine the year-one rule's ~740 000 days fit in the CPU budget and it lists.
const ROWS: Array<{ why: string; call: { name: string; input: unknown }; fails: RegExp | undefined; mayFinish?: boolean }> = [
  { why: "a daily rule running since the year 1", call: { name: "calendar.list_events", input: { calendar_id: "primary", from: "2026-01-01", to: "2026-12-31" } }, fails: /calendar primary: the input needed more than \d+ ms of CPU time|the guest call was stopped: deadline of 30000 ms exceeded/, mayFinish: true },
  { why: "control: an ordinary calendar", call: { name: "calendar.list_events", input: { calendar_id: "ordinary", from: "2026-01-01", to: "2026-12-31" } }, fails: undefined },
  { why: "a message whose HTML nests 100 000 deep", call: { name: "mail.list_unread", input: {} }, fails: /gmail: local message: the input needed more than \d+ ms of CPU time/, mayFinish: true },
];

for (const row of ROWS) {
  test(`${row.why}: ${row.fails ? "a clear tool error" : "listed"}, and /health answers throughout`, { timeout: 60_000 }, async () => {
    const { outcome, answered, failed } = await callWatchingHealth(row.call);
    assert.equal(failed, 0, "every /health request answered 200");
    if (row.fails === undefined) {
      assert.equal(outcome.status, "ok", JSON.stringify(outcome).slice(0, 400));
      return;
    }
    if (row.mayFinish && outcome.status === "ok") {
      assert.ok(JSON.stringify(outcome.output).length < 64 * 1024, "what is listed is bounded");
    } else {
      assert.equal(outcome.status, "error", JSON.stringify(outcome).slice(0, 400));
      assert.match(JSON.stringify(outcome.error), row.fails);
    }
    // The call ran for the whole parse deadline (seconds); a blocked main thread answers nothing meanwhile.
    assert.ok(answered >= 5, `/health answered ${answered} times during the call`);
  });
}

test("control: an ordinary message reads through the same tools", { timeout: 60_000 }, async () => {
  await stopServer();
  await startServer(join(place, "ordinary"));
  const { outcome, failed } = await callWatchingHealth({ name: "mail.list_unread", input: {} });
  assert.equal(failed, 0);
  assert.equal(outcome.status, "ok", JSON.stringify(outcome).slice(0, 400));
  assert.match(JSON.stringify(outcome.output), /ordinary/);
});
