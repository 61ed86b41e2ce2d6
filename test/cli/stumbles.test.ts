/**
 * The first hour, as a new user meets it: every command that starts a run drives it to an end
 * or to a pause whose printed hint is the command that continues it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { cliPlace, clawhiveIn, type CliPlace } from "./fixtures.js";

function runsOf(place: CliPlace): Array<{ id: string; status: string; end_reason?: string; endReason?: string }> {
  const listed = clawhiveIn(place, "runs", "list", "--json");
  assert.equal(listed.code, 0, listed.stderr);
  return JSON.parse(listed.stdout) as Array<{ id: string; status: string }>;
}

/** The one quoted command a hint line names, e.g. 'clawhive resume run_…'. */
function quoted(text: string, prefix: string): string[] {
  const found = [...text.matchAll(/'(clawhive [^']+)'/g)].map((m) => m[1]!).find((c) => c.startsWith(prefix));
  assert.ok(found, `no '${prefix}…' in:\n${text}`);
  return found.split(" ").slice(1);
}

test("call --mount DIR:rw pauses, and the hinted approve then resume write the file", async (t) => {
  const place = await cliPlace("clawhive-stumble-rw-");
  t.after(() => rm(place.root, { recursive: true, force: true }));
  const dir = join(place.root, "project");
  await mkdir(dir);
  const call = clawhiveIn(place, "call", "files.write_file", JSON.stringify({ path: "/work/a.txt", content: "hi" }), "--mount", `/work=${dir}:rw`);
  assert.equal(call.code, 3, call.stderr);
  const approve = quoted(call.stderr, "clawhive approvals approve");
  const decided = clawhiveIn(place, ...approve);
  assert.equal(decided.code, 0, decided.stderr);
  const resume = quoted(decided.stdout, "clawhive resume");
  assert.deepEqual(resume, quoted(call.stderr, "clawhive resume"), "the call and the decision name the same next step");
  const resumed = clawhiveIn(place, ...resume);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(await readFile(join(dir, "a.txt"), "utf8"), "hi");
  assert.ok(runsOf(place).every((r) => r.status === "ended"));
});

test("a usage error of call (unknown tool, bad input) ends its run instead of leaving it active", async (t) => {
  const place = await cliPlace("clawhive-stumble-usage-");
  t.after(() => rm(place.root, { recursive: true, force: true }));
  for (const args of [["files.nope", "{}"], ["files.read_file", '{"path": 3}']]) {
    const call = clawhiveIn(place, "call", ...args, "--agent", "writer", "--agents", place.agents);
    assert.notEqual(call.code, 0, call.stdout);
    assert.notEqual(call.code, 3, call.stderr);
  }
  const runs = runsOf(place);
  assert.ok(runs.length >= 1);
  for (const run of runs) assert.equal(run.status, "ended", JSON.stringify(run));
});

test("run --no-wait without --server is refused before a run exists; nothing would drive it", async (t) => {
  const place = await cliPlace("clawhive-stumble-nowait-");
  t.after(() => rm(place.root, { recursive: true, force: true }));
  const run = clawhiveIn(place, "run", "writer", "note", "--call", "log.info", "--no-wait", "--agents", place.agents);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /--no-wait needs --server/);
  assert.ok(!existsSync(join(place.data, "clawhive.db")), "no store, no run");
});

test("a paused run of tool calls: the printed hint continues it on the store, after an approval or a denial", async (t) => {
  const place = await cliPlace("clawhive-stumble-plan-");
  t.after(() => rm(place.root, { recursive: true, force: true }));
  for (const decision of ["approve", "deny"] as const) {
    const run = clawhiveIn(place, "run", "writer", "note", "--call", `files.write_file={"path":"/workspace/${decision}.txt","content":"x"}`, "--agents", place.agents);
    assert.equal(run.code, 3, run.stderr);
    const decide = quoted(run.stderr, "clawhive approvals approve");
    if (decision === "deny") decide[1] = "deny";
    const decided = clawhiveIn(place, ...decide);
    assert.equal(decided.code, 0, decided.stderr);
    const next = quoted(decided.stdout, "clawhive resume");
    assert.deepEqual(next, quoted(run.stderr, "clawhive resume"));
    const resumed = clawhiveIn(place, ...next, "--agents", place.agents);
    assert.equal(resumed.code, decision === "approve" ? 0 : 1, resumed.stderr);
    assert.equal(existsSync(join(place.data, "workspace", `${decision}.txt`)), decision === "approve");
  }
  assert.ok(runsOf(place).every((r) => r.status === "ended"));
});
