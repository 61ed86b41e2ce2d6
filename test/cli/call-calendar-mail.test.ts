/**
 * Real exports through the shipped command line (`bin/clawhive.js call`), the real plugins and
 * the embedded backends: a DAVx5 calendar whose own `Europe/Berlin` disagrees with IANA lists
 * the clock time the file holds and says so in the tool result's warnings (control: an Apple
 * export whose zone agrees lists without one); `mail.read_message` shows Cc, Bcc, Reply-To and
 * groups (control: a message without them shows them empty).
 */
import assert from "node:assert/strict";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { clawhiveIn, cliPlace } from "./fixtures.js";
import type { CliPlace } from "./fixtures.js";

const FIXTURES = join(PROJECT_ROOT, "test", "fixtures");
const READER = `name: reader
description: Reads mail and calendars.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: mail, version: "*" }
  - { name: calendar, version: "*" }
grants:
  gmail.read: { labels: [INBOX] }
  calendar.read: { calendars: [davx5, apple] }
`;

let place: CliPlace;

before(async () => {
  place = await cliPlace("clawhive-cli-calmail-");
  await writeFile(join(place.agents, "reader.yaml"), READER);
  const calendars = join(place.data, "calendars");
  await mkdir(calendars, { recursive: true });
  await copyFile(join(FIXTURES, "ical-corpus", "ical4j-bitfire1.ics"), join(calendars, "davx5.ics"));
  await copyFile(join(FIXTURES, "ical-corpus", "ccs-calendarserver-TruncatedApr01.ics"), join(calendars, "apple.ics"));
  for (const sub of ["cur", "new", "tmp"]) await mkdir(join(place.data, "mail", sub), { recursive: true });
  // Distinct delivery times: list_unread is newest first.
  await copyFile(join(FIXTURES, "mail-corpus", "mail-rfc2822-example04.eml"), join(place.data, "mail", "new", "1700000003.group.host"));
  await copyFile(join(FIXTURES, "mail-corpus", "mail-rfc2822-example03.eml"), join(place.data, "mail", "new", "1700000002.cc.host"));
  await copyFile(join(FIXTURES, "mail-corpus", "mail-error_emails-content_transfer_encoding_empty.eml"), join(place.data, "mail", "new", "1700000001.bcc.host"));
});

function call(tool: string, input: unknown): any {
  const result = clawhiveIn(place, "call", tool, JSON.stringify(input), "--agent", "reader", "--agents", place.agents);
  assert.equal(result.code, 0, `${tool}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

test("calendar.list_events: a file's own VTIMEZONE is the one read, and a disagreement with IANA is a warning in the result; control: one that agrees is silent", () => {
  const davx5 = call("calendar.list_events", { calendar_id: "davx5", from: "2025-09-01", to: "2025-10-01" });
  assert.deepEqual(davx5.events.map((e: any) => e.start), [{ date_time: "2025-09-17T12:20:00+01:00", time_zone: "Europe/Berlin" }]);
  assert.equal(davx5.warnings.length, 1, JSON.stringify(davx5.warnings));
  assert.match(davx5.warnings[0], /TZID "Europe\/Berlin": the file's own VTIMEZONE puts 2025-09-17T12:20:00 at UTC\+01:00 .* the IANA zone Europe\/Berlin at UTC\+02:00/);
  const apple = call("calendar.list_events", { calendar_id: "apple", from: "2007-03-01", to: "2007-05-01" });
  assert.deepEqual(apple.events.map((e: any) => e.start), [{ date_time: "2007-04-01T12:00:00-04:00", time_zone: "America/New_York" }]);
  assert.equal(apple.warnings, undefined, JSON.stringify(apple.warnings));
});

test("mail.read_message: Cc, Bcc, Reply-To and address groups as written; control: headers a message lacks are empty", () => {
  const listed = call("mail.list_unread", {});
  const ids = listed.messages.map((m: any) => m.id);
  assert.equal(ids.length, 3, JSON.stringify(listed));
  const [group, cc, bcc] = ids.map((id: string) => call("mail.read_message", { id }).headers);
  assert.deepEqual([group.to, group.cc, group.bcc, group.reply_to], ["A Group:Chris Jones <c@a.test>,joe@where.test,John <jdoe@one.test>;", "Undisclosed recipients:;", "", ""]);
  assert.deepEqual([cc.to, cc.cc], ["Mary Smith <mary@x.test>, jdoe@example.org, Who? <one@y.test>", '<boss@nil.test>, "Giant; \\"Big\\" Box" <sysservices@example.net>']);
  assert.deepEqual([bcc.bcc, bcc.cc, bcc.reply_to, bcc.sender], ["Array", "", "", ""]);
});
