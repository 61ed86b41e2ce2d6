import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseAgentManifest } from "../../../runtime/agents/index.js";
import { checkWithinGrant, durationExpiry, patternChoices, serverZone } from "../../../runtime/policy/approvals/index.js";
import { matchArguments } from "../../../runtime/policy/approvals/patterns/glob.js";
import { InvalidInputError } from "../../../runtime/errors.js";

// Each lookalike beside the canonical control that passes, for the same pattern.
const MATCHES: Array<[string, Record<string, string>, unknown, boolean]> = [
  ["mail domain, control", { to: "*@corp.example" }, { to: "ann@corp.example", body: "hi" }, true],
  ["mail domain, mixed case is the same domain", { to: "*@corp.example" }, { to: "ann@CORP.Example" }, true],
  ["mail domain, Cyrillic а lookalike", { to: "*@corp.example" }, { to: "ann@corp.ex\u0430mple" }, false],
  ["mail domain, trailing dot", { to: "*@corp.example" }, { to: "ann@corp.example." }, false],
  ["mail domain, a subdomain of another", { to: "*@corp.example" }, { to: "ann@corp.example.evil.test" }, false],
  ["mail, every recipient must match", { to: "*@corp.example" }, { to: ["ann@corp.example", "eve@evil.test"] }, false],
  ["mail, list control", { to: "*@corp.example" }, { to: ["ann@corp.example", "bob@corp.example"] }, true],
  ["mail, an unnamed bcc is not covered", { to: "*@corp.example" }, { to: "ann@corp.example", bcc: "eve@evil.test" }, false],
  ["path, control", { path: "/workspace/docs/**" }, { path: "/workspace/docs/a/b.md", content: "x" }, true],
  ["path, .. spelling", { path: "/workspace/docs/**" }, { path: "/workspace/docs/../secrets.txt" }, false],
  ["path, %2e%2e spelling", { path: "/workspace/docs/**" }, { path: "/workspace/docs/%2e%2e/secrets.txt" }, false],
  ["path, backslash", { path: "/workspace/docs/**" }, { path: "/workspace/docs\\..\\x" }, false],
  ["path, double slash", { path: "/workspace/docs/**" }, { path: "/workspace//docs/a.md" }, false],
  ["path, fullwidth solidus", { path: "/workspace/docs/**" }, { path: "/workspace/docs\uff0fa.md" }, false],
  ["path, a sibling folder with the same prefix", { path: "/workspace/docs/**" }, { path: "/workspace/docs-private/a.md" }, false],
  ["path, * stays in its folder", { path: "/workspace/docs/*" }, { path: "/workspace/docs/a/b.md" }, false],
  ["path, * control", { path: "/workspace/docs/*" }, { path: "/workspace/docs/b.md" }, true],
  ["path, not NFC", { path: "/workspace/docs/*" }, { path: "/workspace/docs/cafe\u0301.md" }, false],
  ["path, a bidi override", { path: "/workspace/docs/*" }, { path: "/workspace/docs/\u202egpj.md" }, false],
  ["argv, control", { argv: "git status" }, { argv: ["git", "status"] }, true],
  ["argv, an extra flag", { argv: "git status" }, { argv: ["git", "status", "--porcelain"] }, false],
  ["argv, * is one word", { argv: "git diff *" }, { argv: ["git", "diff", "README.md"] }, true],
  ["argv, * is not two words", { argv: "git diff *" }, { argv: ["git", "diff", "--output", "/tmp/x"] }, false],
  ["argv, a lookalike program", { argv: "git status" }, { argv: ["g\u0456t", "status"] }, false],
  ["url, control", { url: "https://api.example/v1/*" }, { url: "https://api.example/v1/items" }, true],
  ["url, mixed-case host is the same host", { url: "https://api.example/v1/*" }, { url: "https://API.example/v1/items" }, false],
  ["url, trailing-dot host", { url: "https://api.example/v1/*" }, { url: "https://api.example./v1/items" }, false],
  ["url, %2e%2e", { url: "https://api.example/v1/*" }, { url: "https://api.example/v1/%2e%2e/admin" }, false],
  ["url, userinfo", { url: "https://api.example/v1/*" }, { url: "https://api.example@evil.test/v1/items" }, false],
];

for (const [name, globs, input, expected] of MATCHES) {
  test(`pattern match: ${name}`, () => {
    assert.equal(matchArguments(globs, input), expected);
  });
}

const home = mkdtempSync(join(tmpdir(), "patterns-"));
mkdirSync(join(home, "ws"));
const coder = parseAgentManifest(
  `name: pc
description: pattern test agent
model: { provider: anthropic, id: test-model }
system_prompt: test
plugins:
  - { name: files, version: "*", tools: [write_file, read_file] }
  - { name: mail, version: "*" }
grants:
  fs.write:
    mounts: [{ guest: /workspace, host: ${home}/ws, mode: rw }]
`,
  { file: "pc.yaml", baseDir: home },
);

const GRANT: Array<[string, { tool: string; arguments: Record<string, string> }, string | null]> = [
  ["a folder under the mount (control)", { tool: "files.write_file", arguments: { path: "/workspace/docs/**" } }, null],
  ["the whole disk", { tool: "files.write_file", arguments: { path: "/**" } }, "pattern.arguments.path"],
  ["a sibling of the mount", { tool: "files.write_file", arguments: { path: "/workspace-other/**" } }, "pattern.arguments.path"],
  ["a .. escape", { tool: "files.write_file", arguments: { path: "/workspace/../etc/**" } }, "pattern.arguments.path"],
  ["a relative path, resolved under the first mount (control)", { tool: "files.write_file", arguments: { path: "docs/**" } }, null],
  ["a relative .. escape", { tool: "files.write_file", arguments: { path: "../docs/**" } }, "pattern.arguments.path"],
  ["a relative path through ..", { tool: "files.write_file", arguments: { path: "docs/../../**" } }, "pattern.arguments.path"],
  ["a relative path from home", { tool: "files.write_file", arguments: { path: "~/docs/**" } }, "pattern.arguments.path"],
  ["an option spelling an absolute path", { tool: "files.write_file", arguments: { path: "if=/etc/**" } }, "pattern.arguments.path"],
  ["a tool the agent is not offered", { tool: "files.delete_file", arguments: { path: "/workspace/docs/**" } }, "pattern.tool"],
  ["a plugin the agent does not have", { tool: "shell.exec", arguments: { argv: "git status" } }, "pattern.tool"],
  ["a mail domain (control)", { tool: "mail.send", arguments: { to: "*@corp.example" } }, null],
  ["any mail domain", { tool: "mail.send", arguments: { to: "*@*" } }, "pattern.arguments.to"],
  ["a lookalike in the glob", { tool: "mail.send", arguments: { to: "*@corp.ex\u0430mple" } }, "pattern.arguments.to"],
];

for (const [name, pattern, field] of GRANT) {
  test(`pattern within the grant: ${name}`, () => {
    if (field === null) return checkWithinGrant(coder.manifest, pattern, "pattern");
    assert.throws(() => checkWithinGrant(coder.manifest, pattern, "pattern"), (e: unknown) => e instanceof InvalidInputError && e.field === field);
  });
}

test("pattern choices: narrowest first, each covering the call it is offered for", () => {
  const input = { path: "/workspace/docs/a.md", content: "hi" };
  const choices = patternChoices("files.write_file", input);
  assert.deepEqual(choices.map((c) => c.pattern.arguments.path), ["/workspace/docs/a.md", "/workspace/docs/*", "/workspace/docs/**"]);
  assert.equal(choices[1]!.summary, "files.write_file path /workspace/docs/*");
  for (const c of choices) assert.ok(matchArguments(c.pattern.arguments, input), c.summary);
  const argv = patternChoices("shell.exec", { argv: ["git", "diff", "README.md"] });
  assert.deepEqual(argv.map((c) => c.pattern.arguments.argv), ["git diff README.md", "git diff *", "git diff **"]);
  assert.deepEqual(patternChoices("files.write_file", { path: "/workspace/../x" }), [], "a non-canonical argument offers nothing");
});

const NOW = Date.UTC(2026, 10, 22, 12, 30);
const DURATIONS: Array<[string, number | null]> = [
  ["30m", NOW + 30 * 60_000],
  ["2h", NOW + 2 * 3_600_000],
  ["30d", NOW + 30 * 86_400_000],
  ["31d", null],
  ["0h", null],
  ["2 h", null],
  ["Today", null],
  ["tomorrow", null],
];
for (const [text, at] of DURATIONS) {
  test(`pattern duration ${JSON.stringify(text)} → ${at === null ? "400 on the field" : "accepted"}`, () => {
    if (at !== null) return assert.equal(durationExpiry(text, NOW, "body.expires_in").at, at);
    assert.throws(() => durationExpiry(text, NOW, "body.expires_in"), (e: unknown) => e instanceof InvalidInputError && e.field === "body.expires_in");
  });
}

test("pattern duration today: until the next local midnight of the server's zone, which the answer names", () => {
  const expected = new Date(NOW);
  expected.setHours(24, 0, 0, 0);
  const today = durationExpiry("today", NOW, "body.expires_in");
  assert.equal(today.at, expected.getTime());
  assert.ok(today.at > NOW && today.at - NOW <= 24 * 3_600_000);
  assert.equal(today.said, `until midnight ${serverZone()} (${expected.toISOString()})`);
});
