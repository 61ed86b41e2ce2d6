/** labelAllowed: the pure matcher the proxy and the policy share, as a table. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { isStateLabel, labelAllowed } from "../../../host-proxies/gmail/index.js";

/** [label, patterns, allowed] — every refusal has an allowed row beside it. */
const ROWS: Array<[string, string[], boolean]> = [
  ["INBOX", ["INBOX"], true],
  ["INBOX", ["inbox"], false],
  ["Work/Reports", ["Work/*"], true],
  ["Work/Reports/2024", ["Work/*"], true],
  ["Workshop", ["Work/*"], false],
  ["Workshop", ["Work*"], true],
  ["Work", ["Work/*"], false],
  ["Work", ["Work", "Work/*"], true],
  ["Work/Reports", ["Work"], false],
  ["Secret", ["*"], true],
  ["", ["*"], false],
  ["a.b", ["a?b"], false],
  ["a?b", ["a?b"], true],
  ["a\nb", ["a*"], true],
  ["Work/Reports", [], false],
];

for (const [label, patterns, allowed] of ROWS) {
  test(`labelAllowed(${JSON.stringify(label)}, ${JSON.stringify(patterns)}) is ${allowed}`, () => {
    assert.equal(labelAllowed(label, patterns), allowed);
  });
}

test("state labels: UNREAD, STARRED, IMPORTANT, CATEGORY_*; control: places", () => {
  for (const label of ["UNREAD", "STARRED", "IMPORTANT", "CATEGORY_PROMOTIONS"]) assert.equal(isStateLabel(label), true, label);
  for (const label of ["INBOX", "SENT", "TRASH", "Work/Reports", "unread", "Category_x"]) assert.equal(isStateLabel(label), false, label);
});
