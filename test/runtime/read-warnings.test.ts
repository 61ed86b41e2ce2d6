import assert from "node:assert/strict";
import { copyFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";

// What a calendar read could not read reaches the model (the result's `warnings`) and the run's events.
const CORPUS = join(PROJECT_ROOT, "test", "fixtures", "ical-corpus");
let runtime: Runtime;
let dispose: () => Promise<void>;
let place: string;

before(async () => {
  place = await tempDir("clawhive-warnings-");
  await mkdir(join(place, "calendars"));
  // A real file with one event whose RRULE is unreadable (node-ical multi-event-basic.ics), and a clean one.
  await copyFile(join(CORPUS, "node-ical-multi-event-basic.ics"), join(place, "calendars", "broken.ics"));
  await copyFile(join(CORPUS, "node-ical-non-utc-until-ny.ics"), join(place, "calendars", "clean.ics"));
  ({ runtime, dispose } = await testRuntime({
    pluginDirs: [join(PROJECT_ROOT, "plugins", "calendar")],
    calendar: { backend: "ics", dir: join(place, "calendars") },
  }));
  await runtime.defineAgent({
    name: "cal",
    description: "calendar reader",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "calendar", version: "*" }],
    grants: { "calendar.read": { calendars: ["broken", "clean"] } },
  });
});
after(async () => {
  await dispose();
  await rm(place, { recursive: true, force: true });
});

const cases = [
  { name: "an event the backend cannot read is a warning naming its UID", calendar: "broken", from: "2011-06-01", to: "2012-05-31", warned: /event "sdfkf09fsd0": skipped, not listed: .*Next/ },
  { name: "control: a file read whole carries no warnings", calendar: "clean", from: "2024-03-01", to: "2024-03-20", warned: undefined },
];

for (const c of cases) {
  test(c.name, async () => {
    const run = await runtime.startRun({ agent: "cal" });
    const outcome = await run.callTool("calendar.list_events", { calendar_id: c.calendar, from: c.from, to: c.to });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome).slice(0, 400));
    const output = (outcome as { output: { events: unknown[]; warnings?: string[] } }).output;
    const events = run.events.filter((e) => e.type === "read-warnings");
    if (c.warned === undefined) {
      assert.equal(output.warnings, undefined);
      assert.equal(events.length, 0);
      assert.ok(output.events.length > 0);
    } else {
      assert.ok(output.warnings?.some((w) => c.warned.test(w)), JSON.stringify(output.warnings));
      assert.equal(events.length, 1);
      const event = events[0] as { count: number; warnings: string[] };
      assert.equal(event.count, output.warnings?.length);
      assert.ok(output.events.length > 0, "the readable events are still listed");
    }
    await run.end();
  });
}
