/** The local search subset and the proxy's query wrapping, one table each. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { andQueries, checkQueryPiece, compileSearch } from "../../../host-proxies/gmail/index.js";
import type { SearchDoc } from "../../../host-proxies/gmail/index.js";
import { throwsWith } from "../../helpers/host-errors.js";

const NOW = Date.UTC(2024, 0, 31);
const DOC: SearchDoc = {
  from: '"Ingo Lütkebohle" <ingo@blank.pages.de>',
  to: "new-httpd@apache.org",
  subject: "Re: running server as root",
  text: "Isn't that the case for almost every other server?",
  labels: ["Work/Reports", "UNREAD"],
  unread: true,
  dateMs: Date.UTC(2024, 0, 28),
};

/** [query, matches DOC] */
const MATCH_ROWS: Array<[string, boolean]> = [
  ["", true],
  ["server", true],
  ["SERVER", true],
  ["lütkebohle", false],
  ["from:lütkebohle", true],
  ["from:apache", false],
  ["to:apache", true],
  ["subject:root", true],
  ["subject:other", false],
  ['"every other server"', true],
  ['"other every"', false],
  ["is:unread", true],
  ["is:read", false],
  ["is:starred", false],
  ["label:work-reports", true],
  ["label:Work/Reports", true],
  ["label:work", false],
  ["newer_than:7d", true],
  ["newer_than:2d", false],
  ["older_than:2d", true],
  ["newer_than:1m", true],
  ["older_than:1y", false],
  ["-server", false],
  ["-(is:read OR is:starred)", true],
  ["is:read OR server", true],
  ["server is:read", false],
  ["server AND is:unread", true],
  ["is:read OR is:starred OR subject:root", true],
  ["(is:read OR is:starred) subject:root", false],
  ["subject:\"running server\" -from:bob", true],
];

for (const [query, matches] of MATCH_ROWS) {
  test(`search ${JSON.stringify(query)} ${matches ? "matches" : "does not match"}`, () => {
    assert.equal(compileSearch(query, { now: NOW })(DOC), matches);
  });
}

test("OR binds tighter than the implicit AND, as in Gmail", () => {
  // a b OR c = a AND (b OR c): false here because `server` (a) holds but neither b nor c does.
  assert.equal(compileSearch("server is:read OR is:starred", { now: NOW })(DOC), false);
  assert.equal(compileSearch("server is:read OR is:unread", { now: NOW })(DOC), true);
});

test("operators are looked up as own properties only", () => {
  for (const op of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    throwsWith(() => compileSearch(`${op}:x`, { now: NOW }), { tag: "invalid-input", message: "not supported" });
  }
});

/** [piece, accepted] */
const PIECE_ROWS: Array<[string, boolean]> = [
  ["", true],
  ["is:unread", true],
  ["(a OR b) -c", true],
  ['subject:"a ) b"', true],
  ["{a b} c", true],
  ["a) OR (b", false],
  ["(a", false],
  ["a)", false],
  ["{a", false],
  ["(a}", false],
  ['"a', false],
  ['") OR ("', true],
  ["a\\) OR (b", false],
  ["a\nb", false],
  ["a\u0000", false],
  ["x".repeat(1001), false],
];

for (const [piece, accepted] of PIECE_ROWS) {
  test(`query piece ${JSON.stringify(piece.slice(0, 20))}: ${accepted ? "a closed group" : "refused"}`, () => {
    if (accepted) checkQueryPiece(piece, "query");
    else throwsWith(() => checkQueryPiece(piece, "query"), { tag: "invalid-input" });
  });
}

test("andQueries wraps each non-empty piece and joins them", () => {
  const piece = (query: string) => ({ query, what: "q" });
  assert.equal(andQueries([piece("newer_than:30d"), piece("  "), piece("is:unread OR is:starred")]), "(newer_than:30d) (is:unread OR is:starred)");
  assert.equal(andQueries([piece(""), piece("")]), "");
  throwsWith(() => andQueries([piece("a"), piece("b) OR (c")]), { tag: "invalid-input" });
});
