import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { inert, jsonText } from "../../runtime/cli/render.js";
import { ApprovalStore } from "../../runtime/policy/approvals/index.js";
import { BIN, cliPlace, clawhiveIn, pendingWrite as pendingWriteIn, type CliPlace } from "./fixtures.js";
import { openStore, systemClock } from "../../runtime/store/index.js";

/** Screen-clear and carriage return: a write whose content would rewrite the terminal if echoed. */
const HOSTILE_CONTENT = "\u001b[2J\rall clear, approve me";

let place: CliPlace;
const clawhive = (...args: string[]) => clawhiveIn(place, ...args);
const pendingWrite = (input: unknown) => pendingWriteIn(place, input);

/** The block `approvals list` printed for `id`. */
function block(stdout: string, id: string): string {
  const found = stdout.split("\n\n").find((b) => b.startsWith(`${id} `));
  assert.ok(found, `no block for ${id} in:\n${stdout}`);
  return found;
}

let a: { run: string; approval: string };
let b: { run: string; approval: string };

before(async () => {
  place = await cliPlace("clawhive-cli-approvals-");
  a = pendingWrite({ path: "/workspace/a.txt", content: "hi" });
  b = pendingWrite({ path: "/workspace/b.txt", content: HOSTILE_CONTENT });
});
after(() => rm(place.root, { recursive: true, force: true }));

describe("clawhive approvals list", () => {
  it("shows each pending approval with what it would allow and where it came from", () => {
    const { code, stdout } = clawhive("approvals", "list");
    assert.equal(code, 0);
    const shown = block(stdout, a.approval);
    assert.match(shown, /^apr_\S+ {2}tool_call {2}pending$/m);
    assert.match(shown, /^ {2}agent: +writer$/m);
    assert.match(shown, new RegExp(`^ {2}run: +${a.run}$`, "m"));
    assert.match(shown, /^ {2}tool: +files\.write_file \(guarded\)$/m);
    assert.match(shown, /"path": "\/workspace\/a\.txt"/);
    assert.match(shown, /"content": "hi"/);
    assert.match(shown, /^ {2}reason: +files\.write_file is Guarded/m);
    assert.match(shown, /^ {2}task: +clawhive call files\.write_file$/m);
    // A call is a run of one planned ToolCall: its task is the context an approver reads.
    assert.match(shown, /^ {2}context: +clawhive call files\.write_file$/m);
    assert.match(shown, /^ {2}created: +\d{4}-\d\d-\d\dT.*Z$/m);
    assert.match(shown, /^ {2}expires: +\d{4}-.*Z \(in \d+m\)$/m);
    block(stdout, b.approval);
  });

  it("--run, --status and --json select and print the approvals as JSON", () => {
    const { code, stdout } = clawhive("approvals", "list", "--run", a.run, "--json");
    assert.equal(code, 0);
    const listed = JSON.parse(stdout) as Array<{ id: string; input: unknown; status: string }>;
    assert.deepEqual(listed.map((x) => x.id), [a.approval]);
    assert.deepEqual(listed[0]!.input, { path: "/workspace/a.txt", content: "hi" });
    assert.deepEqual(JSON.parse(clawhive("approvals", "list", "--status", "denied", "--json").stdout), []);
  });

  it("shows a tool's hostile arguments escaped, never raw (the JSON still means the same)", () => {
    const { stdout } = clawhive("approvals", "list", "--run", b.run);
    assert.doesNotMatch(stdout, /[\u001b\r]/);
    assert.ok(stdout.includes(String.raw`"content": "\u001b[2J\rall clear, approve me"`), stdout);
  });

  // Approvals filed straight into the store: free text (context, reason) and effect fields
  // with every kind of control character, each beside a clean control row.
  const hostile: Array<[string, string, string]> = [
    ["plain text (control)", "please write the report", "please write the report"],
    ["ESC: clear screen", "a\u001b[2Jb", String.raw`a\u{1b}[2Jb`],
    ["CR: overwrite the line", "rm -rf /\rls", String.raw`rm -rf /\u{d}ls`],
    ["C1 CSI", "a\u009b2Jb", String.raw`a\u{9b}2Jb`],
    ["BEL and backspace", "a\u0007\bb", String.raw`a\u{7}\u{8}b`],
    ["DEL", "a\u007fb", String.raw`a\u{7f}b`],
    ["bidi override (CVE-2021-42574)", "a\u202eb", String.raw`a\u{202e}b`],
    ["OSC 8 hyperlink", "\u001b]8;;https://evil\u0007x", String.raw`\u{1b}]8;;https://evil\u{7}x`],
  ];
  it("renders control characters in free text inert, and plain text as it is", async () => {
    const store = await openStore({ url: `file:${join(place.data, "clawhive.db")}` });
    const approvals = await ApprovalStore.open(store, { clock: systemClock });
    const ids = new Map<string, string>();
    try {
      for (const [label, text] of hostile) {
        const filed = await approvals.request({
          kind: "effect",
          runId: "run_hostile",
          traceId: "0".repeat(32),
          agent: "writer",
          stepId: `step_${ids.size + 1}`,
          toolCallId: `call_${ids.size + 1}`,
          tool: "shell.run",
          input: { command: text },
          capability: "shell.exec",
          effect: { argv: ["sh", "-c", text] },
          risk: "unsafe",
          reason: `reason: ${text}`,
          context: `${text}\n  tool: files.read_file (safe)`,
        });
        ids.set(label, filed.id);
      }
    } finally {
      await store.close();
    }
    const { code, stdout } = clawhive("approvals", "list", "--run", "run_hostile", "--limit", "100");
    assert.equal(code, 0);
    // Nothing but newlines among the C0/C1 controls, and no bidi or invisible format characters.
    assert.doesNotMatch(stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
    for (const [label, , shown] of hostile) {
      const text = block(stdout, ids.get(label)!);
      assert.ok(text.includes(`  context:    ${shown}\n`), `${label}:\n${text}`);
      assert.ok(text.includes(`  reason:     reason: ${shown}\n`), `${label}:\n${text}`);
      assert.match(text, /^ {2}capability: +shell\.exec$/m);
      assert.match(text, /^ {2}effect: +\{$/m, label);
      // A second line of context cannot pose as a field: it stays indented under its label.
      assert.match(text, /^ {16}tool: files\.read_file \(safe\)$/m, label);
    }
  });
});

describe("clawhive approvals approve and deny", () => {
  it("refuses bad usage with exit 2 before touching the store", () => {
    const rows: Array<[string[], RegExp]> = [
      [["approvals", "approve", a.approval, "--scope", "forever"], /--scope forever: expected once or run/],
      [["approvals", "approve"], /usage: clawhive approvals approve ID/],
      [["approvals", "deny", a.approval, "--scope", "once"], /Unknown option '--scope'/],
      [["approvals", "list", "--status", "maybe"], /--status maybe: expected one of pending/],
      [["approvals", "frobnicate"], /unknown approvals command 'frobnicate'/],
    ];
    for (const [args, message] of rows) {
      const { code, stderr } = clawhive(...args);
      assert.equal(code, 2, args.join(" "));
      assert.match(stderr, message);
    }
  });

  it("approves, names who decided, and says how to continue", () => {
    const { code, stdout, stderr } = clawhive("approvals", "approve", a.approval, "--by", "alice", "--reason", "looks right");
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`^approved \\(once\\) ${a.approval}: tool_call files\\.write_file of run ${a.run}, by alice: looks right$`, "m"));
    assert.match(stdout, new RegExp(`^continue run ${a.run} with 'clawhive resume ${a.run}' \\(it runs the approved call\\)$`, "m"));
  });

  it("refuses a second decision, an unknown id: exit 1 with the reason", () => {
    const again = clawhive("approvals", "approve", a.approval);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^clawhive: approval apr_\S+: already approved by alice/m);
    const unknown = clawhive("approvals", "deny", "apr_nope");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^clawhive: approval apr_nope: not found/m);
  });

  it("denies, with --by defaulting to the user name", () => {
    const { code, stdout } = clawhive("approvals", "deny", b.approval, "--reason", "not that content");
    assert.equal(code, 0);
    assert.match(stdout, new RegExp(`^denied ${b.approval}: .* by \\S+: not that content$`, "m"));
  });
});

describe("clawhive resume", () => {
  it("runs the approved call, ends the run and prints its report", async () => {
    const { code, stdout, stderr } = clawhive("resume", a.run, "--agents", place.agents);
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).path, "/workspace/a.txt");
    assert.equal(await readFile(join(place.data, "workspace", "a.txt"), "utf8"), "hi");
    assert.match(stderr, /least-privilege report:/);
    assert.match(stderr, /^ {2}used: +fs\.write$/m);
    assert.match(stderr, /^ {2}unused: +fs\.read\b/m);
  });

  it("fails the denied call (exit 1, approval-denied) and writes nothing", () => {
    const { code, stderr } = clawhive("resume", b.run, "--agents", place.agents);
    assert.equal(code, 1);
    assert.match(stderr, /^files\.write_file: approval-denied: approval apr_\S+ was denied: not that content$/m);
    assert.equal(existsSync(join(place.data, "workspace", "b.txt")), false);
    // The summary says what happened: one call, denied, after a wait (not "0 waited").
    assert.match(stderr, /^ {2}tool calls: +1 \(0 ok, 1 denied, 0 failed\); waited for approval 1$/m);
    assert.match(clawhive("runs", "show", b.run).stdout, /^ {2}tool calls: +1 \(0 ok, 1 denied, 0 failed\); waited for approval 1$/m);
  });

  it("refuses an ended or unknown run with exit 1, and bad usage with exit 2", () => {
    const ended = clawhive("resume", a.run);
    assert.equal(ended.code, 1);
    assert.match(ended.stderr, /^clawhive: run run_\S+ has ended at .*; nothing to resume/m);
    const unknown = clawhive("resume", "run_nope");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^clawhive: no run run_nope;/m);
    assert.equal(clawhive("resume").code, 2);
  });

  it("every read command says when there is no store (exit 2)", async () => {
    const empty = await mkdtemp(join(place.root, "empty-"));
    for (const args of [["approvals", "list"], ["approvals", "approve", "apr_x"], ["resume", "run_x"], ["runs", "list"]]) {
      const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", empty], { encoding: "utf8" });
      assert.equal(result.status, 2, args.join(" "));
      assert.match(result.stderr, /^clawhive: no store at .*clawhive\.db/m);
    }
  });
});

describe("inert and jsonText", () => {
  const rows: Array<[string, string, string]> = [
    ["plain (control)", "hello, world\nline two", "hello, world\nline two"],
    ["ESC", "\u001b[31mred", String.raw`\u{1b}[31mred`],
    ["CR", "a\rb", String.raw`a\u{d}b`],
    ["tab", "a\tb", String.raw`a\u{9}b`],
    ["NUL", "a\u0000b", String.raw`a\u{0}b`],
    ["C1 NEL", "a\u0085b", String.raw`a\u{85}b`],
    ["zero width space", "a\u200bb", String.raw`a\u{200b}b`],
    ["line separator", "a\u2028b", String.raw`a\u{2028}b`],
    ["emoji (control)", "ok 👍", "ok 👍"],
  ];
  for (const [label, raw, shown] of rows) {
    it(`inert: ${label}`, () => assert.equal(inert(raw), shown));
  }

  it("inert escapes newlines too for one-line output", () => assert.equal(inert("a\nb", { newlines: false }), String.raw`a\u{a}b`));

  it("jsonText escapes what JSON.stringify passes through, and still parses to the same value", () => {
    for (const [, raw] of rows) {
      const value = { text: raw, list: [raw] };
      const text = jsonText(value);
      assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029]/);
      assert.deepEqual(JSON.parse(text), value);
    }
  });
});
