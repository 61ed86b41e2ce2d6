import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { BIN, cliPlace, pendingWrite, type CliPlace } from "./fixtures.js";

// `approvals approve ID --pattern N --for today` through the shipped binary, under a fixed time
// zone far from UTC, and the refusals of the pattern flags (exit 2 on usage, 1 on a state conflict).

let place: CliPlace;
const ZONE = "Pacific/Kiritimati"; // UTC+14: its midnight is never UTC's

function clawhive(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: ZONE };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_STORE_AUTH_TOKEN", "CLAWHIVE_AGENTS_DIR", "CLAWHIVE_SERVER", "CLAWHIVE_TOKEN"]) delete env[name];
  const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", place.data], { encoding: "utf8", timeout: 300_000, env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The instant the day after `at`'s local date starts in `zone`, found from the zone's own calendar. */
function nextMidnight(at: number, zone: string): number {
  const parts = (ms: number) => Object.fromEntries(new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(ms).map((p) => [p.type, p.value]));
  const today = parts(at);
  const tomorrow = new Date(Date.UTC(Number(today.year), Number(today.month) - 1, Number(today.day) + 1));
  const want = tomorrow.toISOString().slice(0, 10);
  for (let offset = -14 * 60; offset <= 14 * 60; offset += 15) {
    const candidate = tomorrow.getTime() - offset * 60_000;
    const p = parts(candidate);
    if (`${p.year}-${p.month}-${p.day}` === want && p.hour === "00" && p.minute === "00") return candidate;
  }
  throw new Error(`no midnight found for ${zone}`);
}

before(async () => {
  place = await cliPlace("clawhive-cli-today-");
  await mkdir(join(place.agents, "workspace", "docs", "sub"), { recursive: true });
});
after(() => rm(place.root, { recursive: true, force: true }));

it("approvals list: a path relative to the first mount is offered patterns over its folder", () => {
  const relative = pendingWrite(place, { path: "notes/a.md", content: "a" });
  const listed = clawhive("approvals", "list", "--run", relative.run);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /patterns: +1\. files\.write_file path notes\/a\.md; 2\. files\.write_file path notes\/\*; 3\. files\.write_file path notes\/\*\*/);
  // A lookalike spelling is offered none: only a person looking at it may approve it.
  const dotted = pendingWrite(place, { path: "notes/../a.md", content: "a" });
  assert.doesNotMatch(clawhive("approvals", "list", "--run", dotted.run).stdout, /patterns:/);
});

it("approve --pattern N --for today: until the next midnight of the local zone, named", async () => {
  const first = pendingWrite(place, { path: "/workspace/docs/a.md", content: "a" });

  // Refusals, each beside the control below.
  const BAD: Array<[string[], number, RegExp]> = [
    [["--pattern", "3", "--for", "tomorrow"], 2, /"tomorrow" is not a duration like 30m, 2h, 1d or today/],
    [["--pattern", "3", "--for", "Today"], 2, /"Today" is not a duration/],
    [["--pattern", "0", "--for", "today"], 2, /--pattern 0: expected the number of a pattern choice/],
    [["--pattern", "3", "--for", "today", "--scope", "run"], 2, /--scope does not combine with --pattern/],
    [["--for", "today"], 2, /--for needs --pattern N/],
    [["--pattern", "3", "--for", "today", "--by", "mallory"], 2, /--by does not combine with --pattern/],
  ];
  for (const [flags, code, message] of BAD) {
    const bad = clawhive("approvals", "approve", first.approval, ...flags, "--agents", place.agents);
    assert.equal(bad.code, code, `${flags.join(" ")}: ${bad.stderr}`);
    assert.match(bad.stderr, message);
  }
  const missing = clawhive("approvals", "approve", "apr_00000000-0000-4000-8000-000000000000", "--pattern", "1", "--for", "today", "--agents", place.agents);
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /not found/);

  const before = Date.now();
  const approved = clawhive("approvals", "approve", first.approval, "--pattern", "3", "--for", "today", "--applies-to", "agent", "--agents", place.agents);
  const afterwards = Date.now();
  assert.equal(approved.code, 0, approved.stderr);
  const said = new RegExp(`files\\.write_file path /workspace/docs/\\*\\*, every run of writer, until midnight ${ZONE} \\((\\S+)\\)`).exec(approved.stdout);
  assert.ok(said, approved.stdout);
  const at = Date.parse(said[1]!);
  assert.ok([nextMidnight(before, ZONE), nextMidnight(afterwards, ZONE)].includes(at), `${said[1]} is the next midnight in ${ZONE}`);
  assert.notEqual(new Date(at).getUTCHours(), 0, "not UTC's midnight");

  const shown = JSON.parse(clawhive("approvals", "patterns", "--json").stdout) as Array<{ id: string; expires_at: string; arguments: Record<string, string> }>;
  assert.deepEqual(shown.map((p) => [p.arguments.path, Date.parse(p.expires_at)]), [["/workspace/docs/**", at]]);

  const covered = clawhive("call", "files.write_file", JSON.stringify({ path: "/workspace/docs/sub/b.md", content: "b" }), "--agent", "writer", "--agents", place.agents);
  assert.equal(covered.code, 0, covered.stderr);
  // A lookalike of the same folder asks a person.
  pendingWrite(place, { path: "/workspace/docs/./c.md", content: "c" });

  // Deciding it again is a conflict, not a usage error.
  const again = clawhive("approvals", "approve", first.approval, "--pattern", "3", "--for", "today", "--agents", place.agents);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /already approved; only a pending approval can be approved by pattern/);
});
