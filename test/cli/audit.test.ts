import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openAuditLog } from "../../runtime/audit/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { dropAppendOnlyGuards, ManualClock } from "../audit/fixtures.js";
import { MINUTE, populate, T0 } from "./_audit-store.js";

const BIN = join(PROJECT_ROOT, "bin", "clawhive.js");

let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "clawhive-cli-audit-"));
});
after(() => rm(root, { recursive: true, force: true }));

function clawhive(args: string[], env: Record<string, string> = {}) {
  const clean = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_STORE_AUTH_TOKEN"]) delete clean[name];
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 300_000, env: { ...clean, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The seqs of a tail, newest first (tail prints its page oldest first, the newest last). */
function seqs(stdout: string): number[] {
  return stdout.trimEnd().split("\n").filter(Boolean).map((line) => Number(/^#(\d+) /.exec(line)?.[1])).reverse();
}

describe("clawhive audit tail --kind model_call", () => {
  let data: string;
  before(async () => {
    data = await populate(root, "models", async (store) => {
      // Two model calls after the eight records, written through a fresh log (with its guards
      // dropped by populate, which does no harm to appends).
      const log = await openAuditLog(store, { clock: new ManualClock(T0 + 10 * MINUTE) });
      const call = {
        traceId: "trace-1",
        runId: "run-1",
        agent: "mail",
        provider: "anthropic",
        model: "claude-cli",
        baseUrl: "https://api.anthropic.com/v1?key=sk-never",
        messages: 3,
        tools: ["files.read-notes", "mail.send"],
        maxTokens: 1024,
        startAt: T0 + 9 * MINUTE,
      };
      await log.appendModelCall({ ...call, stepId: "step_1", inputTokens: 1200, outputTokens: 85, stopReason: "tool_use", attempts: 2, status: "ok" });
      await log.appendModelCall({ ...call, stepId: "step_2", attempts: 4, status: "error", error: { code: "unavailable", message: "anthropic claude-cli: 500 overloaded (after 4 attempts)" } });
      await log.close();
    });
  });

  it("prints what was called, the usage and the stop reason, never what was said", () => {
    const { code, stdout, stderr } = clawhive(["audit", "tail", "--data-dir", data, "--kind", "model_call"]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(seqs(stdout), [10, 9]);
    const [ok, failed] = stdout.trimEnd().split("\n");
    assert.match(ok!, /^#9\s+2023-11-14T22:22:20\.000Z\s+ok\s+model_call\s+mail\s+-\s+llm\.anthropic\s+allow\s+claude-cli in 1200 out 85 tool_use attempts 2 \(3 msgs, 2 tools, api\.anthropic\.com\)$/);
    assert.match(failed!, /^#10\s+\S+\s+error\s+model_call\s+mail\s+-\s+llm\.anthropic\s+allow\s+error unavailable: anthropic claude-cli: 500 overloaded \(after 4 attempts\) claude-cli attempts 4 \(3 msgs, 2 tools, api\.anthropic\.com\)$/);
    assert.ok(!stdout.includes("sk-never"));
  });

  it("--json gives each record its parsed model call", () => {
    const { code, stdout } = clawhive(["audit", "tail", "--data-dir", data, "--kind", "model_call", "--status", "ok", "--json"]);
    assert.equal(code, 0);
    // In the API's names, as every --json prints.
    const [record, ...rest] = JSON.parse(stdout) as Array<Record<string, unknown>>;
    assert.equal(rest.length, 0);
    assert.equal(record!.kind, "model_call");
    assert.deepEqual(record!.model_call, {
      model: "claude-cli",
      base_url: "api.anthropic.com",
      messages: 3,
      tools: ["files.read-notes", "mail.send"],
      max_tokens: 1024,
      input_tokens: 1200,
      output_tokens: 85,
      stop_reason: "tool_use",
      attempts: 2,
    });
  });

  it("other kinds leave model calls out (control)", () => {
    assert.deepEqual(seqs(clawhive(["audit", "tail", "--data-dir", data, "--kind", "host_call", "--limit", "1"]).stdout), [8]);
  });
});

describe("clawhive audit tail", () => {
  let data: string;
  before(async () => {
    data = await populate(root, "tail");
  });

  it("prints one line a record, the newest last as tail does: time goes forward down the page", () => {
    const { code, stdout, stderr } = clawhive(["audit", "tail", "--data-dir", data]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(seqs(stdout), [8, 7, 6, 5, 4, 3, 2, 1]);
    assert.match(stdout, /^#1 [^\n]*\n[\s\S]*^#8 [^\n]*\n$/m, "the oldest of the page first, the newest last");
    const lines = stdout.trimEnd().split("\n").reverse();
    assert.match(lines[0]!, /^#8\s+2023-11-14T22:20:20\.000Z\s+intent\s+host_call\s+mail\s+send\s+fs\.read-file\s+allow$/);
    assert.match(lines[1]!, /^#7\s+\S+\s+error\s+host_call\s+coder\s+write-notes\s+fs\.write-file\s+allow\s+error io: disk full retry later \(intent #6\)$/);
    assert.match(lines[3]!, /^#5\s+\S+\s+denied\s+host_call\s+coder\s+write-notes\s+fs\.write-file\s+deny\s+denied fs\.write: not_granted: fs\.write \/etc\/passwd: not granted/);
    assert.match(lines[7]!, /^#1\s+2023-11-14T22:13:20\.000Z\s+intent\s+tool_call\s+mail\s+read-notes\s+-\s+allow$/);
    assert.equal(stderr, "", "no next cursor on the last page");
  });

  it("reads the store from --store and CLAWHIVE_STORE_URL as well as the data dir", () => {
    const url = `file:${join(data, "clawhive.db")}`;
    assert.equal(seqs(clawhive(["audit", "tail", "--store", url, "--limit", "1"]).stdout)[0], 8);
    assert.equal(seqs(clawhive(["audit", "tail", "--limit", "1"], { CLAWHIVE_STORE_URL: url }).stdout)[0], 8);
    assert.equal(seqs(clawhive(["audit", "tail", "--limit", "1"], { CLAWHIVE_DATA_DIR: data }).stdout)[0], 8);
  });

  const filters: [string[], number[]][] = [
    [["--run", "run-2"], [7, 6, 5]],
    [["--trace", "trace-3"], [8]],
    [["--agent", "coder"], [7, 6, 5]],
    [["--tool", "read-notes"], [4, 3, 2, 1]],
    [["--kind", "tool_call"], [4, 1]],
    [["--status", "denied"], [5]],
    [["--status", "denied,error"], [7, 5]],
    [["--status", "ok", "--run", "run-1"], [4, 3]],
    // Times filter on start, and an outcome keeps its intent's start: #4 (outcome of #1) starts
    // at T0, #3 at T0+1m with #2.
    [["--since", "2023-11-14T22:17:20Z"], [8, 7, 6, 5]],
    [["--until", "2023-11-14T22:15:20.000Z"], [4, 3, 2, 1]],
    [["--since", "2023-11-14T22:14:20Z", "--until", "2023-11-14T22:16:20Z"], [3, 2]],
    [["--since", "2023-11-14T23:14:20+01:00", "--until", "2023-11-14T22:16:20Z"], [3, 2]],
    [["--since", "2023-11-14"], [8, 7, 6, 5, 4, 3, 2, 1]],
    [["--since", "1d"], []],
    [["--agent", "nobody"], []],
  ];
  for (const [args, expected] of filters) {
    it(`filters: ${args.join(" ")}`, () => {
      const { code, stdout, stderr } = clawhive(["audit", "tail", "--data-dir", data, ...args]);
      assert.equal(code, 0, stderr);
      assert.deepEqual(expected.length === 0 ? [] : seqs(stdout), expected);
      if (expected.length === 0) assert.match(stderr, /no audit records match/);
    });
  }

  it("pages with --limit and the cursor printed to stderr", () => {
    const first = clawhive(["audit", "tail", "--data-dir", data, "--limit", "3"]);
    assert.deepEqual(seqs(first.stdout), [8, 7, 6]);
    const cursor = /^older records: --cursor (\S+)$/m.exec(first.stderr)?.[1];
    assert.ok(cursor, first.stderr);
    const second = clawhive(["audit", "tail", "--data-dir", data, "--limit", "3", "--cursor", cursor]);
    assert.deepEqual(seqs(second.stdout), [5, 4, 3]);
    const next = /^older records: --cursor (\S+)$/m.exec(second.stderr)?.[1];
    const last = clawhive(["audit", "tail", "--data-dir", data, "--limit", "3", "--cursor", next!]);
    assert.deepEqual(seqs(last.stdout), [2, 1]);
    assert.equal(last.stderr, "");
  });

  it("--json prints the records", () => {
    const { code, stdout } = clawhive(["audit", "tail", "--data-dir", data, "--json", "--status", "denied"]);
    assert.equal(code, 0);
    const records = JSON.parse(stdout) as Array<Record<string, unknown>>;
    assert.equal(records.length, 1);
    assert.equal(records[0]!.seq, 5);
    assert.deepEqual(records[0]!.denial, { capability: "fs.write", reason: "not_granted", message: "fs.write /etc/passwd: not granted to agent mail" });
    assert.equal(records[0]!.start_at, T0 + 4 * MINUTE);
  });

  const badFlags: [string[], RegExp][] = [
    [["--limit", "0"], /--limit 0: expected a whole number from 1 to 1000/],
    [["--limit", "1001"], /--limit 1001: expected a whole number from 1 to 1000/],
    [["--limit", "ten"], /--limit ten: expected a whole number/],
    [["--limit", "1.5"], /--limit 1\.5: expected a whole number/],
    [["--since", "yesterday"], /--since yesterday: expected an ISO date or time/],
    [["--since", "2023-02-30"], /--since 2023-02-30: expected an ISO date/],
    [["--until", "2023-11-14T25:00Z"], /--until 2023-11-14T25:00Z: expected an ISO date/],
    [["--until", "11/14/2023"], /--until 11\/14\/2023: expected an ISO date/],
    [["--since", "2023-11-15", "--until", "2023-11-14"], /--since 2023-11-15 is not before --until 2023-11-14/],
    [["--status", "pending"], /--status pending: "pending" is not one of intent, ok, error, denied/],
    [["--status", "ok,"], /--status ok,: "" is not one of/],
    [["--kind", "llm_call"], /--kind llm_call: expected one of tool_call, host_call/],
    [["--cursor", "bogus"], /--cursor: is not a cursor this log issued/],
    [["--run", ""], /--run: expected a value/],
    [["--follow"], /Unknown option '--follow'/],
    [["extra"], /audit tail takes no arguments, got extra/],
  ];
  for (const [args, message] of badFlags) {
    it(`exits 2 naming the flag: ${args.join(" ")}`, () => {
      const { code, stdout, stderr } = clawhive(["audit", "tail", "--data-dir", data, ...args]);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, "");
      assert.match(stderr, new RegExp(`^clawhive: ${message.source}`));
    });
  }

  it("exits 2 when there is no store, without creating one", () => {
    const empty = join(root, "no-store");
    const { code, stderr } = clawhive(["audit", "tail", "--data-dir", empty]);
    assert.equal(code, 2);
    assert.match(stderr, /no store at .*no-store\/clawhive\.db: pass the runtime's --data-dir or --store/);
    assert.equal(clawhive(["audit", "verify", "--data-dir", empty]).code, 2);
    assert.equal(existsSync(empty), false);
  });

  it("exits 2 on an unknown audit command", () => {
    const { code, stderr } = clawhive(["audit", "show"]);
    assert.equal(code, 2);
    assert.match(stderr, /unknown audit command 'show'; usage: clawhive audit tail/);
  });
});

describe("clawhive audit verify", () => {
  it("passes an intact chain, listing in-flight intents apart (control)", async () => {
    const data = await populate(root, "intact");
    const { code, stdout, stderr } = clawhive(["audit", "verify", "--data-dir", data]);
    assert.equal(code, 0, stderr);
    const lines = stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^in flight: seq 8: run run-3, send fs\.read-file, since 2023-11-14T22:20:20\.000Z \(an intent with no outcome/);
    assert.match(lines[1]!, /^ok: 8 records, head 8:[0-9a-f]{64}$/);
    assert.equal(lines.length, 2);

    const json = clawhive(["audit", "verify", "--data-dir", data, "--json"]);
    const report = JSON.parse(json.stdout) as { ok: boolean; records: number; head: { seq: number; hash: string }; in_flight: { seq: number }[] };
    assert.deepEqual([report.ok, report.records, report.in_flight.map((f) => f.seq)], [true, 8, [8]]);
    assert.equal(lines[1], `ok: 8 records, head 8:${report.head.hash}`);

    const head = `8:${report.head.hash}`;
    assert.equal(clawhive(["audit", "verify", "--data-dir", data, "--expect-head", head]).code, 0, "the head it printed matches");
  });

  const tampered: [string, (store: Store) => Promise<void>, RegExp[]][] = [
    [
      "an altered record",
      async (s) => {
        await s.execute(`UPDATE audit_records SET args = '{"path":"/etc/shadow"}' WHERE seq = 3`);
      },
      [/^seq 3: altered: /m],
    ],
    ["a deleted record", async (s) => void (await s.execute("DELETE FROM audit_records WHERE seq = 5")), [/^seq 6: missing: /m, /^seq 6: broken_link: /m]],
  ];
  for (const [label, tamper, expected] of tampered) {
    it(`exits 1 on ${label}, naming the seq`, async () => {
      const data = await populate(root, `tampered-${label.replace(/\W+/g, "-")}`, tamper);
      const { code, stdout } = clawhive(["audit", "verify", "--data-dir", data]);
      assert.equal(code, 1, stdout);
      for (const line of expected) assert.match(stdout, line);
      assert.match(stdout, /^FAILED: \d+ issues? in \d+ records/m);
      assert.doesNotMatch(stdout, /^ok:/m);
    });
  }

  it("detects records cut off the end only against --expect-head", async () => {
    const data = await populate(root, "cut");
    const report = JSON.parse(clawhive(["audit", "verify", "--data-dir", data, "--json"]).stdout) as { head: { seq: number; hash: string } };
    const store = await openStore({ url: `file:${join(data, "clawhive.db")}` });
    await dropAppendOnlyGuards(store);
    await store.execute("DELETE FROM audit_records WHERE seq >= 7");
    await store.close();
    assert.equal(clawhive(["audit", "verify", "--data-dir", data]).code, 0, "a shorter chain is still a chain");
    const { code, stdout } = clawhive(["audit", "verify", "--data-dir", data, "--expect-head", `${report.head.seq}:${report.head.hash}`]);
    assert.equal(code, 1);
    assert.match(stdout, /^seq 8: head_mismatch: /m);
  });

  it("exits 2 on a malformed --expect-head", () => {
    const { code, stderr } = clawhive(["audit", "verify", "--data-dir", root, "--expect-head", "8:abc"]);
    assert.equal(code, 2);
    assert.match(stderr, /--expect-head 8:abc: expected SEQ:HASH/);
  });
});
