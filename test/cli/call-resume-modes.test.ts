import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { bothModes, cli, type BothModes, type Mode, type Result } from "./client-fixtures.js";
import type { CliPlace } from "./fixtures.js";

let modes: BothModes;
let place: CliPlace;
let direct: Mode;
let remote: Mode;
let own: string;

before(async () => {
  modes = await bothModes("clawhive-cli-call-modes-", async (made) => {
    own = join(made.root, "own");
    await mkdir(own);
    await writeFile(join(own, "note.txt"), "a note of its own\n");
    await mkdir(join(made.data, "workspace"), { recursive: true });
    await writeFile(join(made.data, "workspace", "w.txt"), "in the workspace\n");
  });
  ({ place, direct, remote } = modes);
});
after(() => modes?.close());

function both(args: readonly string[]): [[string, Result], [string, Result]] {
  return [["store", cli(direct, args)], ["server", cli(remote, args)]];
}

describe("clawhive call, on the store and through a server", () => {
  it("runs one tool as an agent and as an ad-hoc --mount agent, printing the same", () => {
    const rows = [
      ["call", "files.read_file", '{"path":"/workspace/w.txt"}', "--agent", "writer"],
      ["call", "files.read_file", '{"path":"/w/note.txt"}', "--mount", `/w=${own}`],
      ["call", "files.read_file", '{"path":"/w/note.txt"}', "--mount", `/w=${own}`, "--timeout", "30000", "--json"],
    ];
    for (const args of rows) {
      const [[, store], [, through]] = both(args);
      assert.equal(store.code, 0, `${args.join(" ")} (store): ${store.stderr}`);
      assert.equal(through.code, 0, `${args.join(" ")} (server): ${through.stderr}`);
      const shown = (r: Result) => (args.includes("--json") ? JSON.parse(r.stdout).output : JSON.parse(r.stdout));
      assert.deepEqual(shown(through), shown(store), args.join(" "));
      assert.match(JSON.stringify(shown(store)), /a note of its own|in the workspace/);
    }
    // The same mounts give the same stored agent, whichever way it was stored.
    const agents = cli(remote, ["agent", "list", "--json"]);
    assert.equal((JSON.parse(agents.stdout) as Array<{ name: string }>).filter((a) => a.name.startsWith("cli-")).length, 1, agents.stdout);
  });

  it("refuses the same things the same way (a table; the rows above are the controls)", () => {
    const rows: Array<[string[], number, RegExp]> = [
      [["call", "files.read_file", "{}", "--mount", "/w=/proc"], 2, /^clawhive: --mount \/w=\/proc: refused: \/proc is the kernel's process table/m],
      [["call", "files.read_file", "{}", "--mount", `/w=${place.data}`], 2, /--mount \/w=.*: refused: .*the runtime's data dir/],
      [["call", "files.nope", "{}", "--agent", "writer"], 2, /TOOL: the agent has no tool files\.nope/],
      [["call", "files.read_file", "{}", "--agent", "nobody"], 2, /nobody/],
      [["call", "files.read_file", '{"path":"/etc/passwd"}', "--agent", "writer"], 1, /files\.read_file: denied: /],
      [["call", "files.read_file", "{}", "--agent", "writer", "--timeout", "0"], 2, /--timeout: expected milliseconds > 0/],
    ];
    for (const [args, code, message] of rows) {
      for (const [mode, result] of both(args)) {
        assert.equal(result.code, code, `${args.join(" ")} (${mode}): ${result.stderr}`);
        assert.match(result.stderr, message, `${args.join(" ")} (${mode})`);
      }
    }
  });

  it("--help says that through a server the mount hosts are the server's paths", () => {
    const help = cli(direct, ["call", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Through a server \(--server\) HOST is a path on the server's machine/);
    assert.match(help.stdout, /--server URL/);
  });
});

describe("clawhive resume, on the store and through a server", () => {
  it("a waiting run: exit 3 and what to decide, alike; once it has ended: exit 1 and 'has ended', alike; an unknown run: exit 1", async () => {
    const write = ["call", "files.write_file", JSON.stringify({ path: "/workspace/r.txt", content: "r" }), "--agent", "writer"];
    const paused = cli(remote, write);
    assert.equal(paused.code, 3, paused.stderr);
    const run = /run (run_\S+):/.exec(paused.stderr)![1]!;
    const approval = /waiting for approval (apr_\S+)/.exec(paused.stderr)![1]!;
    for (const [mode, result] of both(["resume", run])) {
      assert.equal(result.code, 3, `${mode}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`files\\.write_file: still waiting for approval ${approval} \\(expires \\d{4}-`), mode);
      assert.match(result.stderr, new RegExp(`decide with 'clawhive approvals approve ${approval}' \\(or deny\\), then 'clawhive resume ${run}'`), mode);
    }
    // Decided through the server, the server continues it itself.
    assert.equal(cli(remote, ["approvals", "approve", approval]).code, 0);
    const watched = cli(remote, ["runs", "watch", run]);
    assert.equal(watched.code, 0, watched.stderr);
    for (const [mode, result] of both(["resume", run])) {
      assert.equal(result.code, 1, `${mode}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^clawhive: run ${run} has ended at \\d{4}-.*; nothing to resume`, "m"), mode);
    }
    for (const [mode, result] of both(["resume", "run_nope"])) {
      assert.equal(result.code, 1, `${mode}: ${result.stderr}`);
      assert.match(result.stderr, /^clawhive: no run run_nope; /m, mode);
    }
  });
});

describe("clawhive agent list and show, on the store and through a server", () => {
  it("print the same lines and the same records", () => {
    for (const args of [["agent", "list"], ["agent", "show", "writer"], ["agent", "show", "writer", "--json"], ["agent", "list", "--json"]]) {
      const [[, store], [, through]] = both(args);
      assert.equal(store.code, 0, `${args.join(" ")} (store): ${store.stderr}`);
      assert.equal(through.code, 0, `${args.join(" ")} (server): ${through.stderr}`);
      assert.equal(through.stdout, store.stdout, args.join(" "));
    }
    const shown = JSON.parse(cli(direct, ["agent", "show", "writer", "--json"]).stdout) as { origin: string; file: string; source: string; warnings: unknown[] };
    assert.deepEqual([shown.origin, shown.file, shown.warnings], ["file", join(place.agents, "writer.yaml"), []]);
    assert.match(shown.source, /^name: writer$/m);
    assert.match(cli(direct, ["agent", "show", "writer"]).stdout, new RegExp(`^agent writer \\(file ${join(place.agents, "writer.yaml").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)\nname: writer$`, "m"));
  });

  it("an invalid manifest file: list names its problems and exits 1; show prints them; an unknown name exits 2 (alike)", async () => {
    const broken = join(place.agents, "broken.yaml");
    await writeFile(broken, "name: broken\ndescription: d\nmodel: { provider: anthropic, id: m, temperature: hot }\nsystem_prompt: s\nplugins: []\ngrants: {}\n");
    try {
      for (const [mode, result] of both(["agent", "list"])) {
        assert.equal(result.code, 1, `${mode}: ${result.stderr}`);
        assert.equal(result.stdout, "", mode);
        assert.match(result.stderr, new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: model\\.temperature: `, "m"), mode);
      }
      for (const [mode, result] of both(["agent", "show", "broken"])) {
        assert.equal(result.code, 0, `${mode}: ${result.stderr}`);
        assert.match(result.stdout, /^ {2}invalid: model\.temperature: /m, mode);
      }
    } finally {
      await rm(broken);
    }
    for (const [mode, result] of both(["agent", "show", "nobody"])) {
      assert.equal(result.code, 2, `${mode}: ${result.stderr}`);
      assert.match(result.stderr, /no agent named nobody/, mode);
    }
    const lint = cli(direct, ["agent", "list", "--skip-host-dirs"]);
    assert.equal(lint.code, 2, lint.stderr);
    assert.match(lint.stderr, /--skip-host-dirs is for validate/);
  });
});
