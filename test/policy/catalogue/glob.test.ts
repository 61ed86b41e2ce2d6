import assert from "node:assert/strict";
import { test } from "node:test";
import { globCovers, globMatches } from "../../../runtime/policy/catalogue/index.js";

// [pattern, value, matches]
const MATCHES: [string, string, boolean][] = [
  ["INBOX", "INBOX", true],
  ["INBOX", "inbox", false],
  ["INBOX", "INBOX2", false],
  ["Work/*", "Work/a/b", true],
  ["Work/*", "Work", false],
  ["Work/*", "Workers/x", false],
  ["*", "", true],
  ["a.b", "axb", false], // `.` is literal, not a regex wildcard
  ["--pre*", "--pre=sh", true],
  ["--pre*", "-pre", false],
  ["[x]", "[x]", true], // brackets are literal
  ["*", "line\nbreak", true],
];

for (const [pattern, value, expected] of MATCHES) {
  test(`globMatches(${JSON.stringify(pattern)}, ${JSON.stringify(value)}) is ${expected}`, () => {
    assert.equal(globMatches(pattern, value), expected);
  });
}

// [outer, inner, covers]: each false row sits beside a true control for the same outer.
const COVERS: [string, string, boolean][] = [
  ["*", "anything*", true],
  ["INBOX", "INBOX", true],
  ["INBOX", "INBOX*", false],
  ["Work/*", "Work/Projects/*", true],
  ["Work/*", "Work*", false],
  ["a*", "a*b", true],
  ["*b", "a*", false],
  ["*b", "a*b", true],
  ["a*c", "ab*c", true],
  ["a*c", "a*", false],
];

for (const [outer, inner, expected] of COVERS) {
  test(`globCovers(${JSON.stringify(outer)}, ${JSON.stringify(inner)}) is ${expected}`, () => {
    assert.equal(globCovers(outer, inner), expected);
  });
}
