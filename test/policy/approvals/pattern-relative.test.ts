import assert from "node:assert/strict";
import { test } from "node:test";
import { patternChoices } from "../../../runtime/policy/approvals/index.js";
import { matchArguments } from "../../../runtime/policy/approvals/patterns/glob.js";

// Calls whose arguments are relative (to the cwd, or to the first mount) or URLs with a port and
// a query: each is offered a useful pattern, and that pattern never covers a lookalike.

const GIT_DIFF = { argv: ["git", "diff", "src/a.ts"], cwd: "/workspace" };
const READ_REL = { path: "notes/2026/a.md" };
const API = { url: "https://api.example:8443/v1/items?id=3&next=/v1/items/4" };

const CHOICES: Array<[string, string, unknown, string, string[]]> = [
  ["shell argv with a relative path", "shell.exec", GIT_DIFF, "argv", ["git diff src/a.ts", "git diff src/**", "git diff *", "git diff **"]],
  ["shell argv with an absolute path", "shell.exec", { argv: ["cat", "/workspace/src/a.ts"], cwd: "/workspace" }, "argv", ["cat /workspace/src/a.ts", "cat /workspace/src/**", "cat *", "cat **"]],
  ["files path relative to the mount", "files.read_file", READ_REL, "path", ["notes/2026/a.md", "notes/2026/*", "notes/2026/**"]],
  ["URL with a port and a query", "web.fetch", API, "url", [API.url, "https://api.example:8443/v1/items?*", "https://api.example:8443/v1/**", "https://api.example:8443/**"]],
];

for (const [name, tool, input, field, expected] of CHOICES) {
  test(`pattern choices: ${name}`, () => {
    const choices = patternChoices(tool, input);
    assert.deepEqual(choices.map((c) => c.pattern.arguments[field]), expected);
    for (const c of choices) assert.ok(matchArguments(c.pattern.arguments, input), `${c.summary} covers the call it is offered for`);
  });
}

test("pattern choices: the cwd a relative argv resolves against stays exact in every choice", () => {
  for (const c of patternChoices("shell.exec", GIT_DIFF)) assert.equal(c.pattern.arguments.cwd, "/workspace", c.summary);
});

test("pattern choices: an argv word that is no canonical path offers nothing", () => {
  for (const arg of ["src/../a.ts", "./src/a.ts", "src//a.ts", "~/a.ts", "--output=/tmp/x", "if=/etc/passwd", "HEAD:src/a.ts"]) {
    assert.deepEqual(patternChoices("shell.exec", { argv: ["git", "diff", arg], cwd: "/workspace" }), [], arg);
  }
});

const ARGV = { argv: "git diff src/**", cwd: "/workspace" };
const FILES = { path: "notes/**" };
const URLQ = { url: "https://api.example:8443/v1/items?*" };
// [name, globs, call, matches]; each deny has its control above it.
const MATCHES: Array<[string, Record<string, string>, unknown, boolean]> = [
  ["argv subtree, control", ARGV, { argv: ["git", "diff", "src/lib/b.ts"], cwd: "/workspace" }, true],
  ["argv subtree, .. out of src", ARGV, { argv: ["git", "diff", "src/../../etc/passwd"], cwd: "/workspace" }, false],
  ["argv subtree, %2e%2e", ARGV, { argv: ["git", "diff", "src/%2e%2e/x"], cwd: "/workspace" }, false],
  ["argv subtree, fullwidth solidus", ARGV, { argv: ["git", "diff", "src\uff0fa.ts"], cwd: "/workspace" }, false],
  ["argv subtree, bidi override", ARGV, { argv: ["git", "diff", "src/\u202ests.a"], cwd: "/workspace" }, false],
  ["argv subtree, not NFC", ARGV, { argv: ["git", "diff", "src/cafe\u0301.ts"], cwd: "/workspace" }, false],
  ["argv subtree, an extra word", ARGV, { argv: ["git", "diff", "src/a.ts", "--output=/tmp/x"], cwd: "/workspace" }, false],
  ["argv subtree, a sibling folder", ARGV, { argv: ["git", "diff", "src-private/a.ts"], cwd: "/workspace" }, false],
  ["argv subtree, the same path absolute", ARGV, { argv: ["git", "diff", "/src/a.ts"], cwd: "/workspace" }, false],
  ["argv subtree, another cwd", ARGV, { argv: ["git", "diff", "src/a.ts"], cwd: "/workspace/other" }, false],
  ["argv subtree, a cwd with ..", ARGV, { argv: ["git", "diff", "src/a.ts"], cwd: "/workspace/../etc" }, false],
  ["argv any word, control", { argv: "git diff *", cwd: "/workspace" }, { argv: ["git", "diff", "src/a.ts"], cwd: "/workspace" }, true],
  ["argv any word, still one word", { argv: "git diff *", cwd: "/workspace" }, { argv: ["git", "diff", "src/a.ts", "b.ts"], cwd: "/workspace" }, false],
  ["argv any word, a non-canonical word", { argv: "git diff *", cwd: "/workspace" }, { argv: ["git", "diff", "../a.ts"], cwd: "/workspace" }, false],
  ["files relative, control", FILES, { path: "notes/2026/a.md" }, true],
  ["files relative, ./ spelling", FILES, { path: "./notes/a.md" }, false],
  ["files relative, .. inside", FILES, { path: "notes/../secrets/a" }, false],
  ["files relative, empty segment", FILES, { path: "notes//a.md" }, false],
  ["files relative, backslash", FILES, { path: "notes\\..\\a" }, false],
  ["files relative, Cyrillic lookalike folder", FILES, { path: "n\u043etes/a.md" }, false],
  ["files relative, a trailing slash is the same folder (control)", FILES, { path: "notes/a/" }, true],
  ["url query, control", URLQ, { url: "https://api.example:8443/v1/items?id=9&next=/v1/x" }, true],
  ["url query, another path", URLQ, { url: "https://api.example:8443/v1/items/x?id=9" }, false],
  ["url query, another port", URLQ, { url: "https://api.example:8444/v1/items?id=9" }, false],
  ["url query, no port", URLQ, { url: "https://api.example/v1/items?id=9" }, false],
  ["url query, a longer host", URLQ, { url: "https://api.example.evil.test:8443/v1/items?id=9" }, false],
  ["url query, %2e in the path", URLQ, { url: "https://api.example:8443/v1/%2e%2e/items?id=9" }, false],
  ["url query, a fragment is not the query", URLQ, { url: "https://api.example:8443/v1/items?id=9#x" }, false],
  ["url query, the default port spelled out", { url: "https://api.example/v1/items?*" }, { url: "https://api.example:443/v1/items?id=9" }, false],
];

for (const [name, globs, input, expected] of MATCHES) {
  test(`pattern match (relative, query): ${name}`, () => {
    assert.equal(matchArguments(globs, input), expected);
  });
}
