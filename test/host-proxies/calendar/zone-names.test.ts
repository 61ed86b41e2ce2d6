import assert from "node:assert/strict";
import { test } from "node:test";
import { ianaZoneOf, offsetOnlyZone } from "../../../host-proxies/calendar/ics/zones.js";

// TZIDs as Outlook, Exchange and other clients write them (the quoted ones are from the corpus files).
const named: Array<[string, string | undefined]> = [
  ["(UTC-05:00) Eastern Time (US & Canada)", "America/New_York"],
  ["(UTC-05:00) Eastern Time (US and Canada)", "America/New_York"],
  ["(UTC+07:00) Bangkok, Hanoi, Jakarta", "Asia/Bangkok"],
  ["(GMT+10:00) Canberra, Melbourne, Sydney", "Australia/Sydney"],
  ["(UTC-03:00) Brasília", "America/Sao_Paulo"],
  ["(GMT+01.00) Amsterdam / Berlin / Bern / Rome / Stockholm / Vienna", "Europe/Berlin"],
  ["Amsterdam, Belgrade, Berlin, Brussels, Budapest, Madrid, Paris, Prague, Stockholm", "Europe/Berlin"],
  ["W. Europe Standard Time", "Europe/Berlin"],
  ["UTC+01", "Etc/GMT-1"],
  ["GMT-0500", "Etc/GMT+5"],
  ["UTC", "UTC"],
  // Controls: names that say nothing about a place are not guessed at.
  ["(UTC-05:00) Somewhere Nobody Lives", undefined],
  ["tzone://Microsoft/Custom", undefined],
  ["Customized Time Zone", undefined],
  ["UTC+05:30", undefined],
];

for (const [tzid, zone] of named) test(`TZID ${JSON.stringify(tzid)} → ${zone ?? "no zone"}`, () => assert.equal(ianaZoneOf(tzid), zone));

test("an offset-only display name gives a fixed-offset guess (the caller warns); a place name does not", () => {
  assert.equal(offsetOnlyZone("(GMT +01:00)"), "Etc/GMT-1");
  assert.equal(offsetOnlyZone("(UTC-05:00) Somewhere Nobody Lives"), "Etc/GMT+5");
  assert.equal(offsetOnlyZone("(UTC+05:30) Chennai"), undefined, "no Etc zone has half hours");
  assert.equal(offsetOnlyZone("Customized Time Zone"), undefined);
});
