/**
 * calendar.add_event on every real file of the corpus (test/fixtures/ical-corpus), each on a temp
 * copy: the file's bytes stay byte-for-byte, the new event is inserted before its last
 * END:VCALENDAR and reads back. A file with no VCALENDAR to insert into (a bare VEVENT) is
 * refused with a clear error and left untouched.
 */
import assert from "node:assert/strict";
import { cp, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { IcsFileBackend } from "../../../host-proxies/calendar/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { fixturePath, newEvent, tempDir, window } from "./_fixtures.js";

test("add_event keeps every corpus file byte-for-byte around the inserted event, or refuses one it cannot insert into", async (t) => {
  const dir = await tempDir(t);
  await cp(fixturePath("ical-corpus"), dir, { recursive: true });
  const backend = new IcsFileBackend(dir, { newUid: () => "added@conformance" });
  const names = (await readdir(dir)).filter((n) => n.endsWith(".ics"));
  assert.ok(names.length >= 50);
  let refused = 0;
  for (const name of names) {
    const id = name.replace(/\.ics$/, "");
    const before = await readFile(join(dir, name));
    const text = before.toString("latin1");
    const last = [...text.matchAll(/(^|\n)END:VCALENDAR[ \t]*(\r?\n|$)/gi)].at(-1);
    const event = newEvent({ calendarId: id, summary: `added to ${id}`, start: { date: "2031-05-04" }, end: { date: "2031-05-05" } });
    if (last === undefined) {
      await assert.rejects(backend.addEvent(event), (e: unknown) => e instanceof HostProxyError && e.hostError.tag === "io" && /no END:VCALENDAR line/.test(e.message), name);
      assert.ok((await readFile(join(dir, name))).equals(before), `${name} is untouched`);
      refused++;
      continue;
    }
    await backend.addEvent(event);
    const after = await readFile(join(dir, name));
    const at = last.index + (last[1] ?? "").length;
    const inserted = after.length - before.length;
    assert.ok(after.subarray(0, at).equals(before.subarray(0, at)), `${name}: bytes before the insertion unchanged`);
    assert.ok(after.subarray(at + inserted).equals(before.subarray(at)), `${name}: bytes after the insertion unchanged`);
    assert.match(after.subarray(at, at + inserted).toString("utf8"), /^BEGIN:VEVENT\r?\nUID:added@conformance/, name);
    const listed = await backend.listEvents(window(id, "2031-05-04T00:00:00Z", "2031-05-05T00:00:00Z", { query: "added" }));
    assert.deepEqual(listed.map((e) => e.summary), [`added to ${id}`], name);
  }
  assert.ok(refused > 0 && refused < names.length, "both kinds of file are in the corpus");
});
