import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BIN, cliPlace, clawhiveIn, pendingWrite, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let run: string;
let approval: string;
const clawhive = (...args: string[]) => clawhiveIn(place, ...args);

interface ListedRun {
  id: string;
  status: string;
  agent: string;
  task: string | null;
  pending: { tool: string; approval_id: string } | null;
  report: { used: string[] } | null;
}

before(async () => {
  place = await cliPlace("clawhive-cli-runs-");
  ({ run, approval } = pendingWrite(place, { path: "/workspace/r.txt", content: "hi" }));
});
after(() => rm(place.root, { recursive: true, force: true }));

describe("clawhive runs, while a run waits", () => {
  it("list --json shows it awaiting approval, with the ToolCall it waits with", () => {
    const { code, stdout } = clawhive("runs", "list", "--json");
    assert.equal(code, 0);
    const runs = JSON.parse(stdout) as ListedRun[];
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.id, run);
    assert.equal(runs[0]!.status, "awaiting_approval");
    assert.equal(runs[0]!.agent, "writer");
    assert.deepEqual(runs[0]!.pending && { tool: runs[0]!.pending.tool, approval_id: runs[0]!.pending.approval_id }, { tool: "files.write_file", approval_id: approval });
    assert.deepEqual(JSON.parse(clawhive("runs", "list", "--status", "ended", "--json").stdout), []);
  });

  it("list prints one line a run", () => {
    const { stdout } = clawhive("runs", "list");
    assert.match(stdout, new RegExp(`^${run} +awaiting_approval +writer +\\S+Z +waits ${approval} +clawhive call files\\.write_file$`, "m"));
  });

  it("show gives the pending ToolCall, its approval id and no report yet", () => {
    const { code, stdout } = clawhive("runs", "show", run);
    assert.equal(code, 0);
    assert.match(stdout, /^ {2}status: +awaiting_approval$/m);
    assert.match(stdout, /^ {2}trace: +[0-9a-f]{32}$/m);
    assert.match(stdout, new RegExp(`^waiting: approval ${approval} \\(pending\\)$`, "m"));
    assert.match(stdout, /"path": "\/workspace\/r\.txt"/);
    assert.match(stdout, new RegExp(`^ {2}decide: +clawhive approvals approve ${approval}`, "m"));
    assert.match(stdout, /^least-privilege report: none yet/m);
  });

  it("todo prints the run's todo list (none written: empty); --json the API's answer; no such run exits 1", () => {
    const shown = clawhive("runs", "todo", run);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout, "todo    the list is empty\n");
    const json = JSON.parse(clawhive("runs", "todo", run, "--json").stdout) as { run_id: string; scope: string; items: unknown[]; updated_at: unknown };
    assert.deepEqual(json, { run_id: run, scope: `run:${run}`, items: [], done: 0, updated_at: null, updated_by_run: null });
    const missing = clawhive("runs", "todo", "run_nope");
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no run run_nope/);
    assert.equal(clawhive("runs", "todo").code, 2, "no id: bad usage");
  });

  it("resume before a decision exits 3 and says what to decide", () => {
    const { code, stderr } = clawhive("resume", run, "--agents", place.agents);
    assert.equal(code, 3);
    assert.match(stderr, new RegExp(`still waiting for approval ${approval}`));
  });
});

describe("clawhive runs, once the run ends", () => {
  before(() => {
    assert.equal(clawhive("approvals", "approve", approval, "--by", "bob").code, 0);
    const resumed = clawhive("resume", run, "--agents", place.agents, "--json");
    assert.equal(resumed.code, 0, resumed.stderr);
    const outcome = JSON.parse(resumed.stdout) as { run: string; status: string; report: { used: string[] } };
    assert.equal(outcome.run, run);
    assert.equal(outcome.status, "ok");
    assert.deepEqual(outcome.report.used, ["fs.write"]);
  });

  it("wrote the file", async () => {
    assert.equal(await readFile(join(place.data, "workspace", "r.txt"), "utf8"), "hi");
  });

  it("show prints the ended run and its least-privilege report", () => {
    const { code, stdout } = clawhive("runs", "show", run);
    assert.equal(code, 0);
    assert.match(stdout, /^ {2}status: +ended$/m);
    assert.match(stdout, /^ {2}ended: +\d{4}-.*Z$/m);
    assert.doesNotMatch(stdout, /^waiting:/m);
    // It waited once (on the node before the resume): said, not "0 waited".
    assert.match(stdout, /^ {2}tool calls: +1 \(1 ok, 0 failed\); waited for approval 1$/m);
    assert.match(stdout, /^ {2}granted: +fs\.read, fs\.write, log$/m);
    assert.match(stdout, /^ {2}used: +fs\.write$/m);
    assert.match(stdout, /^ {2}unused: +fs\.read, log \(candidates/m);
    assert.match(stdout, /^ {2}denials: +none$/m);
    assert.match(stdout, new RegExp(`^ {2}${approval} +tool_call +files\\.write_file +used by bob \\(once\\)$`, "m"));
  });

  it("show --json and list --status ended --json carry the stored report", () => {
    const shown = JSON.parse(clawhive("runs", "show", run, "--json").stdout) as ListedRun & { approvals: Array<{ id: string; status: string }> };
    assert.equal(shown.status, "ended");
    assert.deepEqual(shown.report?.used, ["fs.write"]);
    assert.deepEqual(shown.approvals.map((a) => [a.id, a.status]), [[approval, "used"]]);
    const ended = JSON.parse(clawhive("runs", "list", "--status", "ended", "--json").stdout) as ListedRun[];
    assert.deepEqual(ended.map((r) => r.id), [run]);
  });

  it("an unknown run is exit 1; bad usage exit 2", () => {
    const unknown = clawhive("runs", "show", "run_nope");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^clawhive: no run run_nope;/m);
    const rows: Array<[string[], RegExp]> = [
      [["runs", "list", "--status", "paused"], /--status paused: expected one of active, awaiting_approval, ended/],
      [["runs", "list", "--limit", "0"], /--limit 0: expected a whole number from 1 to 1000/],
      [["runs", "show"], /usage: clawhive runs show ID/],
      [["runs"], /usage: clawhive runs list \| show ID/],
    ];
    for (const [args, message] of rows) {
      const { code, stderr } = clawhive(...args);
      assert.equal(code, 2, args.join(" "));
      assert.match(stderr, message);
    }
  });

  it("every command has --help", () => {
    for (const command of ["runs", "approvals", "resume"]) {
      const result = spawnSync(process.execPath, [BIN, command, "--help"], { encoding: "utf8" });
      assert.equal(result.status, 0);
      assert.match(result.stdout, new RegExp(`^clawhive ${command} — `));
    }
  });
});
