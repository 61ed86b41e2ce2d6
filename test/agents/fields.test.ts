/**
 * Each bad field yields one error naming the file, the dot path and what is expected; the
 * same field with a good value parses (the control beside each deny case).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { stringify } from "yaml";
import { parseAgentManifest } from "../../runtime/agents/index.js";
import { assertManifestError, baseManifest, dataDir, FILE, parseObject, withField } from "./_fixtures.js";
import type { Path } from "./_fixtures.js";

interface Row {
  name: string;
  path: Path;
  bad: unknown;
  good: unknown;
  /** The dot path the error must name. */
  at: string;
  message: RegExp;
}

const HTTP = ["grants", "http.fetch"];
const SHELL = ["grants", "shell.exec"];
const READ_MOUNT = ["grants", "fs.read", "mounts", 0];

const ROWS: Row[] = [
  { name: "wrong type", path: ["model", "temperature"], bad: "hot", good: 0.5, at: "model.temperature", message: /^expected number, got "hot"$/ },
  { name: "wrong type at the top", path: ["name"], bad: 42, good: "tester", at: "name", message: /expected string/ },
  { name: "number out of range", path: ["model", "temperature"], bad: 3, good: 2, at: "model.temperature", message: /Invalid value|2/ },
  { name: "unknown top-level key", path: ["colour"], bad: "red", good: undefined, at: "colour", message: /^unknown key "colour"; expected one of: name, description, model/ },
  { name: "unknown nested key", path: [...READ_MOUNT, "hots"], bad: "x", good: undefined, at: "grants.fs.read.mounts[0].hots", message: /unknown key "hots"; expected one of: guest, host, mode/ },
  { name: "missing required key", path: ["model", "id"], bad: undefined, good: "gpt-4.1", at: "model.id", message: /required key is missing/ },
  { name: "unknown provider", path: ["model", "provider"], bad: "gemini", good: "openai", at: "model.provider", message: /"openai" \| "anthropic" \| "openai-compatible"/ },
  { name: "bad semver range", path: ["plugins", 0, "version"], bad: "latest", good: ">=0.1 <2", at: "plugins[0].version", message: /semver range/ },
  { name: "empty semver range", path: ["plugins", 0, "version"], bad: " ", good: "0.1.x", at: "plugins[0].version", message: /semver range/ },
  { name: "bad plugin name", path: ["plugins", 0, "name"], bad: "Files", good: "files", at: "plugins[0].name", message: /lowercase name/ },
  { name: "bad tool name", path: ["plugins", 0, "tools"], bad: ["read_file", "Write-File"], good: ["read_file", "write_file"], at: "plugins[0].tools[1]", message: /tool name/ },
  { name: "duplicate plugin", path: ["plugins", 1], bad: { name: "files", version: "^1" }, good: { name: "shell", version: "^1" }, at: "plugins[1].name", message: /already listed at plugins\[0\]/ },
  { name: "unknown capability", path: ["grants", "fs.exec"], bad: {}, good: undefined, at: "grants.fs.exec", message: /^unknown capability "fs.exec"; expected one of: fs.read, fs.write, shell.exec/ },
  { name: "host pattern with a wildcard inside", path: [...HTTP, "hosts"], bad: ["api.*.example.com"], good: ["*.example.com"], at: "grants.http.fetch.hosts[0]", message: /'\*' is allowed only alone or as a whole leading label/ },
  { name: "host pattern with a port", path: [...HTTP, "hosts"], bad: ["api.example.com:8443"], good: ["api.example.com"], at: "grants.http.fetch.hosts[0]", message: /ports go in `ports`/ },
  { name: "host pattern in upper case", path: [...HTTP, "hosts"], bad: ["API.example.com"], good: ["api.example.com"], at: "grants.http.fetch.hosts[0]", message: /lowercase/ },
  { name: "host pattern with a scheme", path: [...HTTP, "hosts"], bad: ["https://example.com"], good: ["example.com"], at: "grants.http.fetch.hosts[0]", message: /no scheme/ },
  { name: "host pattern numeric tail (an IPv4 to URL parsers)", path: [...HTTP, "hosts"], bad: ["example.123"], good: ["127.0.0.1"], at: "grants.http.fetch.hosts[0]", message: /DNS name/ },
  { name: "IP address not canonical", path: [...HTTP, "hosts"], bad: ["::FFFF:1.2.3.4"], good: ["::1"], at: "grants.http.fetch.hosts[0]", message: /lowercase|canonical/ },
  { name: "unknown method", path: [...HTTP, "methods"], bad: ["FETCH"], good: ["POST"], at: "grants.http.fetch.methods[0]", message: /"GET"/ },
  { name: "allowed address not canonical", path: [...HTTP, "allow_addresses"], bad: ["010.0.0.1"], good: ["10.0.0.1"], at: "grants.http.fetch.allow_addresses[0]", message: /IPv4|canonical/ },
  { name: "port out of range", path: [...HTTP, "ports"], bad: [0], good: [8443], at: "grants.http.fetch.ports[0]", message: /1/ },
  { name: "missing host dir", path: [...READ_MOUNT, "host"], bad: "./nope", good: "./workspace/", at: "grants.fs.read.mounts[0].host", message: /^directory does not exist: \// },
  { name: "host is a file", path: [...READ_MOUNT, "host"], bad: "./a-file", good: "other/../workspace", at: "grants.fs.read.mounts[0].host", message: /^not a directory/ },
  { name: "host with ~", path: [...READ_MOUNT, "host"], bad: "~/work", good: "workspace", at: "grants.fs.read.mounts[0].host", message: /'~' is not expanded/ },
  { name: "guest with ..", path: [...READ_MOUNT, "guest"], bad: "/workspace/../etc", good: "/workspace", at: "grants.fs.read.mounts[0].guest", message: /canonical absolute guest path/ },
  { name: "guest relative", path: [...READ_MOUNT, "guest"], bad: "workspace", good: "/workspace", at: "grants.fs.read.mounts[0].guest", message: /canonical absolute guest path/ },
  { name: "fs.read mount rw", path: [...READ_MOUNT, "mode"], bad: "rw", good: "ro", at: "grants.fs.read.mounts[0].mode", message: /"ro"/ },
  { name: "allow_sensitive typo", path: ["grants", "fs.read", "allow_sensitive"], bad: [".evn"], good: [".env"], at: "grants.fs.read.allow_sensitive[0]", message: /deny list/ },
  { name: "one guest, two hosts", path: ["grants", "fs.write", "mounts", 0, "host"], bad: "./other", good: "./workspace", at: "grants.fs.write.mounts[0].host", message: /one guest path, one directory/ },
  { name: "nested guest not mirroring", path: ["grants", "fs.write", "mounts", 0], bad: { guest: "/workspace/src", host: "./other" }, good: { guest: "/workspace/src", host: "./workspace/src" }, at: "grants.fs.write.mounts[0].host", message: /one guest path/ },
  { name: "shell command with a path", path: [...SHELL, "commands", 0, "name"], bad: "/bin/sh", good: "git", at: "grants.shell.exec.commands[0].name", message: /bare command name/ },
  { name: "shell flag without dash", path: [...SHELL, "commands", 0, "flags"], bad: ["verbose"], good: ["--verbose"], at: "grants.shell.exec.commands[0].flags", message: /start with '-'/ },
  { name: "kv quota not whole", path: ["grants", "kv"], bad: { namespace: "notes", quota_bytes: 1.5 }, good: { namespace: "notes", quota_bytes: 1024 }, at: "grants.kv.quota_bytes", message: /whole number/ },
  { name: "openai-compatible without base_url", path: ["model", "provider"], bad: "openai-compatible", good: "openai", at: "model.base_url", message: /required when provider is openai-compatible/ },
  { name: "base_url over plain http", path: ["model", "base_url"], bad: "http://llm.example.com/v1", good: "http://localhost:11434/v1", at: "model.base_url", message: /https/ },
  { name: "api key pasted as the secret name", path: ["model", "api_key_secret"], bad: "sk-ant-api03-abcdef", good: "anthropic", at: "model.api_key_secret", message: /looks like an API key/ },
  { name: "call timeout above run timeout", path: ["limits"], bad: { run_timeout_ms: 10_000, call_timeout_ms: 20_000 }, good: { run_timeout_ms: 20_000, call_timeout_ms: 20_000 }, at: "limits.call_timeout_ms", message: /must not exceed/ },
  { name: "lower_risk without acknowledged", path: ["approvals", "lower_risk", 0], bad: { tool: "files.write_file", to: "safe" }, good: { tool: "files.write_file", to: "safe", acknowledged: true }, at: "approvals.lower_risk[0].acknowledged", message: /needs acknowledged: true/ },
  { name: "lower_risk acknowledged false", path: ["approvals", "lower_risk", 0], bad: { tool: "files.write_file", to: "safe", acknowledged: false }, good: { tool: "files.write_file", to: "guarded", acknowledged: true }, at: "approvals.lower_risk[0].acknowledged", message: /needs acknowledged: true/ },
  { name: "risk override of an unlisted plugin", path: ["approvals", "raise_risk", 0], bad: { tool: "web.fetch", to: "unsafe" }, good: { tool: "files.read_file", to: "guarded" }, at: "approvals.raise_risk[0].tool", message: /plugin web is not listed/ },
  { name: "risk override tool malformed", path: ["approvals", "raise_risk", 0], bad: { tool: "write_file", to: "unsafe" }, good: { tool: "files.write_file", to: "unsafe" }, at: "approvals.raise_risk[0].tool", message: /plugin.tool/ },
  { name: "unknown danger id", path: ["acknowledge"], bad: ["yolo"], good: ["mail-read-shell"], at: "acknowledge[0]", message: /"fs-write-shell-same-mount"/ },
  { name: "bad sub-agent name", path: ["sub_agents"], bad: ["Coder"], good: ["coder"], at: "sub_agents[0]", message: /lowercase name/ },
  { name: "guarded scope unknown", path: ["approvals", "guarded"], bad: "always", good: "run", at: "approvals.guarded", message: /"ask" \| "run"/ },
];

for (const row of ROWS) {
  test(`manifest field: ${row.name} names ${row.at}; control: a good value parses`, async (t) => {
    const dir = await dataDir(t);
    const withShell = row.path[1] === "shell.exec" ? withField(baseManifest(), [...SHELL, "commands"], [{ name: "git" }]) : baseManifest();
    const base = row.path[1] === "http.fetch" ? withField(withShell, [...HTTP, "hosts"], ["example.com"]) : withShell;
    assertManifestError(() => parseObject(withField(base, row.path, row.bad), dir.base), row.at, row.message);
    const good = parseObject(withField(base, row.path, row.good), dir.base);
    assert.equal(good.manifest.name, "tester");
  });
}

const YAML_ROWS: [string, string, string, RegExp][] = [
  ["syntax error", "name: tester\nmodel: [unclosed\n", "line 3, column 1", /^not valid YAML/],
  ["duplicate key", "name: a\nname: b\n", "line 2, column 1", /not valid YAML: Map keys must be unique/],
  ["empty document", "", "(root)", /expected a mapping .*got an empty document/],
  ["a list, not a mapping", "- a\n- b\n", "(root)", /got a list/],
  ["two documents", "name: a\n---\nname: b\n", "line 2, column 1", /multiple documents/],
  ["alias expansion past the cap", `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n`, "(root)", /not valid YAML: .*alias/i],
  ["__proto__ key", `${stringify(baseManifest())}__proto__: {polluted: true}\n`, "__proto__", /unknown key "__proto__"/],
];

for (const [name, text, at, message] of YAML_ROWS) {
  test(`manifest YAML: ${name} is reported at ${at}`, async (t) => {
    const dir = await dataDir(t);
    assertManifestError(() => parseAgentManifest(text, { file: FILE, baseDir: dir.base }), at, message);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });
}

test("manifest errors list every schema problem, one line each, each naming the file", async (t) => {
  const dir = await dataDir(t);
  const bad = withField(withField(baseManifest(), ["name"], 1), ["model", "max_tokens"], "many");
  const error = assertManifestError(() => parseObject(bad, dir.base), "name", /expected string/);
  assert.deepEqual(error.issues.map((i) => i.path), ["name", "model.max_tokens"]);
  for (const line of error.message.split("\n")) assert.ok(line.startsWith(`${FILE}: `), line);
});

test("checkHostDirs: false lints without the disk; control: the default checks", async (t) => {
  const dir = await dataDir(t);
  const m = withField(baseManifest(), ["grants", "fs.read", "mounts", 0, "host"], "./not-yet");
  assertManifestError(() => parseObject(m, dir.base), "grants.fs.read.mounts[0].host", /does not exist/);
  const linted = parseObject(withField(m, ["grants", "fs.write"], undefined), dir.base, { checkHostDirs: false });
  assert.equal(linted.manifest.grants["fs.read"]?.mounts[0]?.host, `${dir.base}/not-yet`);
});
