import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sseMessages } from "../../runtime/cli/sse.js";
import { parseCallFlag } from "../../runtime/cli/run.js";
import { eventLine, parseApprovalAnswer, runSucceeded } from "../../runtime/cli/run-render.js";
import type { RunView } from "../../runtime/cli/views.js";
import { bothModes, cli, start, type BothModes, type Mode } from "./client-fixtures.js";
import type { CliPlace } from "./fixtures.js";
import { HAS_SCRIPT, inTerminal } from "./terminal.js";

let modes: BothModes;
let place: CliPlace;
let direct: Mode;
let remote: Mode;

before(async () => {
  modes = await bothModes("clawhive-cli-run-");
  ({ place, direct, remote } = modes);
});
after(() => modes?.close());

const LIST = `files.list_dir={"path":"/workspace"}`;
const write = (name: string, content: string) => `files.write_file=${JSON.stringify({ path: `/workspace/${name}`, content })}`;

describe("the inline approval question", () => {
  it("takes o, r and d (or the words), any case; anything else asks again", () => {
    const rows: Array<[string, string, unknown]> = [
      ["o", "tool_call", { decision: "approve", scope: "once" }],
      [" Once \n", "tool_call", { decision: "approve", scope: "once" }],
      ["r", "tool_call", { decision: "approve", scope: "run" }],
      ["RUN", "tool_call", { decision: "approve", scope: "run" }],
      ["d", "tool_call", { decision: "deny" }],
      ["deny", "effect", { decision: "deny" }],
      ["o", "effect", { decision: "approve", scope: "once" }],
    ];
    for (const [text, kind, answer] of rows) assert.deepEqual(parseApprovalAnswer(text, kind), { answer }, JSON.stringify(text));
  });

  it("never approves on a stray key, an empty line, or a run scope for an effect", () => {
    const rows: Array<[string, string, RegExp]> = [
      ["", "tool_call", /^answer o \(approve once\), r \(approve for the run\) or d \(deny\)$/],
      ["y", "tool_call", /^"y": answer o/],
      ["yes", "tool_call", /answer o/],
      ["od", "tool_call", /answer o/],
      ["r", "effect", /an effect is approved once/],
      ["\u001b[2J", "tool_call", /\\u\{1b\}/],
    ];
    for (const [text, kind, message] of rows) {
      const parsed = parseApprovalAnswer(text, kind);
      assert.ok("error" in parsed, JSON.stringify(text));
      assert.match(parsed.error, message);
    }
  });
});

describe("--call TOOL=JSON", () => {
  it("splits at the first '=' and parses the input; a bare tool gets {}", () => {
    assert.deepEqual(parseCallFlag('files.write_file={"path":"/w/a=b","content":"x=y"}'), { name: "files.write_file", input: { path: "/w/a=b", content: "x=y" } });
    assert.deepEqual(parseCallFlag("files.list_dir"), { name: "files.list_dir", input: {} });
    assert.deepEqual(parseCallFlag("echo=[1,2]"), { name: "echo", input: [1, 2] });
  });

  it("refuses a malformed flag with what to write instead", () => {
    assert.throws(() => parseCallFlag("files.read_file={nope"), /--call files\.read_file: the input is not valid JSON/);
    // Nested past the limit: refused before it is parsed, naming where; control: 60 deep parses.
    assert.throws(() => parseCallFlag(`probe.echo={"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}`), { code: "invalid_input", message: /^--call probe\.echo\.a\[0\].*nested more than 64 levels deep/ });
    assert.doesNotThrow(() => parseCallFlag(`probe.echo={"a":${"[".repeat(60)}${"]".repeat(60)}}`));
    assert.throws(() => parseCallFlag('={"a":1}'), /expected TOOL=JSON/);
    assert.throws(() => parseCallFlag("a b={}"), /expected TOOL=JSON/);
  });
});

describe("event lines", () => {
  it("shows each kind of event on one line, inert", () => {
    const line = (type: string, data: Record<string, unknown>) => eventLine({ seq: 1, type, data });
    assert.equal(line("tool-call", { tool: "files.write_file", input: { path: "/w/a", content: "x\ny" } }), 'call    files.write_file {"path":"/w/a","content":"x\\ny"}');
    assert.equal(line("tool-result", { tool: "files.read_file", status: "ok", duration_ms: 12.4 }), "ok      files.read_file (12 ms)");
    assert.equal(line("tool-result", { tool: "t.x", status: "error", error: { kind: "not-found", message: "no\u001b[2Jfile" }, duration_ms: 1 }), "error   t.x: not-found: no\\u{1b}[2Jfile (1 ms)");
    assert.equal(line("tool-result", { tool: "t.x", status: "approval_required" }), undefined);
    assert.equal(line("approval-required", { approval: { id: "apr_1", kind: "tool_call", tool: "t.x", reason: "Guarded" } }), "waits   t.x: approval apr_1 (tool_call): Guarded");
    assert.equal(line("host-call", { call: "fs.read", capability: "fs.read", ok: false, denial: { reason: "outside-mount", message: "/etc" } }), "host    fs.read (fs.read) denied: outside-mount: /etc");
    assert.equal(line("log", { plugin: "files", level: "info", message: "a\nb", dropped: 2 }), "log     files info: a\\u{a}b (2 earlier lines dropped)");
    assert.equal(line("instance", { plugin: "files", action: "bound" }), undefined);
    assert.equal(line("run-ended", { reason: "cancelled" }), "ended   cancelled");
  });

  it("counts a run a success only when it completed with every planned call ok", () => {
    const run = (over: Partial<RunView>): RunView =>
      ({ status: "ended", end_reason: "completed", tool_calls: 1, outcomes: [{ status: "ok" }], ...over }) as RunView;
    assert.equal(runSucceeded(run({})), true);
    assert.equal(runSucceeded(run({ outcomes: [{ status: "error" }] })), false);
    assert.equal(runSucceeded(run({ end_reason: "cancelled" })), false);
    assert.equal(runSucceeded(run({ tool_calls: 2 })), false, "a call that never ran");
    assert.equal(runSucceeded(run({ status: "awaiting_approval" })), false);
  });
});

describe("the SSE reader", () => {
  it("reads events split anywhere across chunks, CRLF or LF, comments and multi-line data", async () => {
    const text = ': hello\r\nid: 1\r\nevent: tool-call\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 2\nevent: end\ndata: {}\n\n';
    const bytes = new TextEncoder().encode(text);
    const chunks = [bytes.slice(0, 5), bytes.slice(5, 31), bytes.slice(31, 32), bytes.slice(32)];
    const body = new ReadableStream<Uint8Array>({ start: (c) => { for (const chunk of chunks) c.enqueue(chunk); c.close(); } });
    const seen = [];
    for await (const m of sseMessages(new Response(body))) seen.push(m);
    assert.deepEqual(seen, [{ id: "1", event: "tool-call", data: '{"a":\n1}' }, { id: "2", event: "end", data: "{}" }]);
  });

  it("reads one event whose CRLF is split across two chunks as one event, not two", async () => {
    const text = 'id: 7\r\nevent: log\r\ndata: {"n":1}\r\n\r\n';
    const bytes = new TextEncoder().encode(text);
    // Every split point, so a chunk ending in the CR of any CRLF is among them.
    for (let cut = 1; cut < bytes.length; cut++) {
      const body = new ReadableStream<Uint8Array>({ start: (c) => { c.enqueue(bytes.slice(0, cut)); c.enqueue(bytes.slice(cut)); c.close(); } });
      const seen = [];
      for await (const m of sseMessages(new Response(body))) seen.push(m);
      assert.deepEqual(seen, [{ id: "7", event: "log", data: '{"n":1}' }], `split at ${cut}`);
    }
  });
});

describe("clawhive run, on the store and through a server", () => {
  for (const mode of ["direct", "server"] as const) {
    const m = () => (mode === "direct" ? direct : remote);

    it(`${mode}: streams a run of safe calls to its end and exits 0`, () => {
      const { code, stdout, stderr } = cli(m(), ["run", "writer", "look around", "--call", LIST, "--call", LIST]);
      assert.equal(code, 0, stderr);
      assert.match(stderr, /^run run_\S+ started: agent writer, 2 tool calls, trace [0-9a-f]{32}$/m);
      assert.match(stdout, /^call {4}files\.list_dir \{"path":"\/workspace"\}$/m);
      assert.match(stdout, /^host {4}fs\.listDir \(fs\.read\) allowed$/m);
      assert.equal(stdout.match(/^ok {6}files\.list_dir \(\d+ ms\)$/gm)?.length, 2);
      assert.match(stdout, /^ended {3}completed$/m);
      assert.match(stdout, /^run run_\S+ ended \(completed\): 2 tool calls, 2 ok, 0 failed$/m);
    });

    it(`${mode}: exits 1 when a tool call fails, after the rest ran; --json prints the run`, () => {
      const missing = `files.read_file={"path":"/workspace/missing-${mode}.txt"}`;
      const { code, stdout, stderr } = cli(m(), ["run", "writer", "read a missing file", "--call", missing, "--call", LIST, "--json"]);
      assert.equal(code, 1, stderr);
      const run = JSON.parse(stdout) as RunView;
      assert.equal(run.status, "ended");
      assert.equal(run.end_reason, "completed");
      assert.deepEqual((run.outcomes as Array<{ tool: string; status: string }>).map((o) => [o.tool, o.status]), [["files.read_file", "error"], ["files.list_dir", "ok"]]);
      assert.match(stderr, /^error {3}files\.read_file: \S+: /m, "the event lines go to stderr with --json");
    });

    it(`${mode}: without a terminal, stops at an approval (exit 3) and says how to decide; decided, 'runs watch' follows it to its end`, async () => {
      const file = `note-${mode}.txt`;
      const first = cli(m(), ["run", "writer", "write a note", "--call", write(file, mode), "--call", LIST]);
      assert.equal(first.code, 3, first.stderr);
      const approval = /waits for approval (apr_\S+)/.exec(first.stderr)?.[1];
      const run = /^run (run_\S+) started/m.exec(first.stderr)?.[1];
      assert.ok(approval && run, first.stderr);
      const flag = mode === "server" ? ` --server ${modes.server.url}` : "";
      assert.ok(first.stderr.includes(`decide with 'clawhive approvals approve ${approval}${flag}' (or deny)`), first.stderr);
      assert.match(first.stdout, new RegExp(`^waits {3}files\\.write_file: approval ${approval} \\(tool_call\\)`, "m"));

      const decided = cli(m(), ["approvals", "approve", approval, "--reason", "fine"]);
      assert.equal(decided.code, 0, decided.stderr);
      assert.match(decided.stdout, mode === "server" ? /^the server continues run run_\S+ \(it runs the approved call\); follow it with 'clawhive runs watch run_\S+ --server/m : /^continue run run_\S+ with 'clawhive resume run_\S+' \(it runs the approved call\)$/m);

      const watched = cli(m(), ["runs", "watch", run]);
      assert.equal(watched.code, 0, watched.stderr);
      assert.match(watched.stdout, /^ok {6}files\.write_file/m);
      assert.match(watched.stdout, /^run run_\S+ ended \(completed\): 2 tool calls, 2 ok, 0 failed$/m);
      assert.equal(await readFile(join(place.data, "workspace", file), "utf8"), mode);
      const shown = cli(m(), ["runs", "show", run]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /^ {2}status: +ended$/m);
    });

    it(`${mode}: --no-wait prints the run id alone; 'runs watch' then follows it (on the store: refused, nothing would drive it)`, () => {
      const submitted = cli(m(), ["run", "writer", "later", "--call", LIST, "--no-wait"]);
      if (mode !== "server") {
        assert.equal(submitted.code, 2, submitted.stderr);
        assert.match(submitted.stderr, /--no-wait needs --server/);
        return;
      }
      assert.equal(submitted.code, 0, submitted.stderr);
      assert.match(submitted.stdout, /^run_[0-9a-f-]+\n$/);
      assert.match(submitted.stderr, /follow it with: clawhive runs watch run_/);
      const watched = cli(m(), ["runs", "watch", submitted.stdout.trim()]);
      assert.equal(watched.code, 0, watched.stderr);
      assert.match(watched.stdout, /^ended {3}completed$/m);
    });
  }

  it("server: --wait-approval keeps waiting, says for what, and goes on once someone else approves", async () => {
    const running = start(remote, ["run", "writer", "wait for me", "--call", write("waited.txt", "w"), "--wait-approval"]);
    await running.waitFor(/waiting for approval (apr_\S+) \(files\.write_file, expires \S+\): decide with 'clawhive approvals approve/);
    const approval = /waiting for approval (apr_\S+)/.exec(running.output().stderr)![1]!;
    const decided = cli(remote, ["approvals", "approve", approval]);
    assert.equal(decided.code, 0, decided.stderr);
    const { code, stdout, stderr } = await running.done;
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^run run_\S+ ended \(completed\): 1 tool call, 1 ok, 0 failed$/m);
  });

  for (const mode of ["direct", "server"] as const) {
    it(`${mode}: Ctrl-C cancels the run and exits 130`, async () => {
      const running = start(mode === "direct" ? direct : remote, ["run", "writer", "to be cancelled", "--call", write(`c-${mode}.txt`, "c"), "--wait-approval"]);
      await running.waitFor(/waiting for approval apr_/);
      const run = /^run (run_\S+) started/m.exec(running.output().stderr)![1]!;
      running.child.kill("SIGINT");
      const { code, stderr } = await running.done;
      assert.equal(code, 130, stderr);
      assert.match(stderr, new RegExp(`^cancelled run ${run}$`, "m"));
      const shown = cli(remote, ["runs", "show", run, "--json"]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.deepEqual([JSON.parse(shown.stdout).status, JSON.parse(shown.stdout).end_reason], ["ended", "cancelled"]);
      // The cancelled run's approval is withdrawn: nobody can approve what it asked for any more.
      const approval = /waiting for approval (apr_\S+)/.exec(stderr)![1]!;
      const late = cli(remote, ["approvals", "approve", approval]);
      assert.equal(late.code, 1, late.stdout);
      assert.match(late.stderr, /withdrawn|cancelled/);
      assert.equal(cli(remote, ["approvals", "list"]).stdout.includes(approval), false);
    });
  }

  it("refuses bad usage with exit 2 and a message, in both modes", () => {
    const rows: Array<[Mode, string[], RegExp]> = [
      [remote, ["run", "writer", "both", "--call", LIST, "--conversation", "conv_x"], /--conversation continues a run the model drives: it does not combine with --call/],
      [remote, ["run", "writer"], /usage: clawhive run AGENT "TASK" \[--call/],
      [remote, ["run", "writer", "t", "--call", "files.read_file={nope"], /--call files\.read_file: the input is not valid JSON/],
      [remote, ["run", "writer", "t", "--call", LIST, "--grants", "[]"], /--grants: expected a JSON object/],
      [remote, ["run", "writer", "t", "--call", LIST, "--agents", "/tmp"], /--agents and --server do not combine/],
      [remote, ["run", "nobody", "t", "--call", LIST], /nobody/],
      [direct, ["run", "nobody", "t", "--call", LIST], /nobody/],
      [remote, ["run", "writer", "t", "--call", "files.nope={}"], /nope/],
      [direct, ["run", "writer", "t", "--call", "files.nope={}"], /nope/],
      [remote, ["run", "writer", "t", "--call", LIST, "--bogus"], /Unknown option '--bogus'/],
    ];
    for (const [mode, args, message] of rows) {
      const { code, stderr } = cli(mode, args);
      assert.equal(code, 2, `${mode.kind} ${args.join(" ")}: ${stderr}`);
      assert.match(stderr, message, args.join(" "));
    }
  });
});

describe("clawhive run in a terminal", { skip: HAS_SCRIPT ? false : "no util-linux script for a pseudo-terminal" }, () => {
  it("server: shows the approval in full, asks again on a stray key, and approves for the run with r", async () => {
    const { code, stdout } = await inTerminal(remote, ["run", "writer", "two notes", "--call", write("t1.txt", "1"), "--call", write("t2.txt", "2")], ["x", "r"]);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^ {2}arguments: +\{\r?$/m);
    assert.match(stdout, /^ {2}task: +two notes\r?$/m);
    assert.match(stdout, /"x": answer o \(approve once\), r \(approve for the run\) or d \(deny\)/);
    assert.match(stdout, /approved \(run\) apr_\S+; the run continues/);
    assert.equal(stdout.split("[o/r/d]? ").length - 1, 2, "asked twice for the first call (after the stray x), never for the second");
    assert.match(stdout, /ended \(completed\): 2 tool calls, 2 ok, 0 failed/);
    assert.equal(await readFile(join(place.data, "workspace", "t2.txt"), "utf8"), "2");
  });

  it("server: Ctrl-C at the question cancels the run and exits 130", async () => {
    const { code, stdout } = await inTerminal(remote, ["run", "writer", "never mind", "--call", write("never.txt", "n")], ["\u0003"]);
    assert.equal(code, 130, stdout);
    const run = /cancelled run (run_\S+)/.exec(stdout)?.[1];
    assert.ok(run, stdout);
    assert.equal(JSON.parse(cli(remote, ["runs", "show", run, "--json"]).stdout).end_reason, "cancelled");
  });

  it("direct: d denies it; the call fails and the run exits 1", async () => {
    const { code, stdout } = await inTerminal(direct, ["run", "writer", "a denied note", "--call", write("denied.txt", "no")], ["d"]);
    assert.equal(code, 1, stdout);
    assert.match(stdout, /denied apr_\S+; the run continues/);
    assert.match(stdout, /files\.write_file: error: approval-denied: approval apr_\S+ was denied/);
    await assert.rejects(readFile(join(place.data, "workspace", "denied.txt")));
  });
});
