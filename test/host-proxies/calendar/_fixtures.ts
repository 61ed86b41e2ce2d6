/** Paths, temp calendar directories and shared assertions for the calendar proxy tests. */
import { chmod, cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { checkNewEvent, IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import type { CheckedNewEvent, IcsFileBackendOptions, NewEvent } from "../../../host-proxies/calendar/index.js";
export { rejectsWith, throwsWith } from "../../helpers/host-errors.js";

/** The compiled tests run from dist/test/…; fixtures stay in the source tree. */
const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/", import.meta.url));

export function fixturePath(relative: string): string {
  return join(FIXTURES, relative);
}

/** A temp directory removed when `t` ends. */
export async function tempDir(t: TestContext, prefix = "clawhive-calendar-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A temp copy of test/fixtures/ical (file mode made writable), one calendar per export. */
export async function icalCopy(t: TestContext): Promise<string> {
  const dir = await tempDir(t);
  await cp(fixturePath("ical"), dir, { recursive: true });
  for (const name of await readdir(dir)) await chmod(join(dir, name), 0o644);
  return dir;
}

/** An .ics backend over the real exports (read-only use), collecting the notes it reports. */
export function exportsBackend(options: IcsFileBackendOptions = {}): { backend: IcsFileBackend; notes: Array<[string, string]> } {
  const notes: Array<[string, string]> = [];
  const backend = new IcsFileBackend(fixturePath("ical"), { ...options, onNote: (id, note) => notes.push([id, note]) });
  return { backend, notes };
}

/** A `new-event` with defaults, checked as the proxy would. */
export function newEvent(fields: Partial<NewEvent> & Pick<NewEvent, "start" | "end">): CheckedNewEvent {
  return checkNewEvent({ calendarId: "primary", summary: "Planning", attendees: [], ...fields });
}

/** An `EventQuery` over [timeMin, timeMax). */
export function window(calendarId: string, timeMin: string, timeMax: string, extra: { query?: string; maxResults?: number } = {}) {
  return { calendarId, timeMin, timeMax, query: extra.query, maxResults: extra.maxResults ?? 250 };
}

/** ms since the epoch of an RFC 3339 string (for comparing instants, whatever the offset). */
export function ms(text: string | undefined): number {
  return Date.parse(text ?? "");
}
