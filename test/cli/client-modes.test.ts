import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { echoComponent, packTgz, writePackage } from "../helpers/plugin-packages.js";
import { cli, serve, type Mode, type Result, type Served } from "./client-fixtures.js";
import { closedPort, sameMoment, seedModelCall } from "./modes-fixtures.js";
import { cliPlace, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let server: Served;
let direct: Mode;
let remote: Mode;
let runId: string;
let approvalId: string;

before(async () => {
  place = await cliPlace("clawhive-cli-modes-");
  server = await serve(place);
  direct = { kind: "direct", place };
  remote = { kind: "server", server };
  // Something in every listing: an ended run with a used approval and its audit records, a secret.
  const write = `files.write_file=${JSON.stringify({ path: "/workspace/m.txt", content: "m" })}`;
  const started = cli(remote, ["run", "writer", "fill the listings", "--call", write, "--call", `files.list_dir={"path":"/workspace"}`]);
  assert.equal(started.code, 3, started.stderr);
  approvalId = /waits for approval (apr_\S+)/.exec(started.stderr)![1]!;
  runId = /^run (run_\S+) started/m.exec(started.stderr)![1]!;
  assert.equal(cli(remote, ["approvals", "approve", approvalId]).code, 0);
  assert.equal(cli(remote, ["runs", "watch", runId]).code, 0);
  assert.equal(cli(remote, ["secret", "set", "modes_token"], { input: "a-secret-value-of-some-length\n" }).code, 0);
  // A model call's record, written beside the server as a second writer on the store.
  await seedModelCall(place);
});
after(async () => {
  await server?.stop();
  await rm(place.root, { recursive: true, force: true });
});

function both(args: readonly string[]): { direct: Result; server: Result } {
  return { direct: cli(direct, args), server: cli(remote, args) };
}

describe("the same command on the store and through a server", () => {
  it("prints the same lines and exits the same way", () => {
    const rows: string[][] = [
      ["plugin", "list"],
      ["plugin", "info", "files"],
      ["agent", "list"],
      ["tools"],
      ["tools", "--agent", "writer"],
      ["runs", "list"],
      ["runs", "show", runId],
      ["approvals", "list", "--status", "all"],
      ["approvals", "list"],
      ["audit", "tail", "--limit", "5"],
      ["audit", "tail", "--run", runId, "--status", "denied"],
      ["audit", "tail", "--kind", "model_call"],
      ["audit", "tail", "--kind", "model_call", "--json"],
      ["audit", "verify"],
      ["secret", "list"],
    ];
    for (const args of rows) {
      const got = both(args);
      assert.equal(got.direct.code, 0, `${args.join(" ")} (store): ${got.direct.stderr}`);
      assert.equal(got.server.code, got.direct.code, `${args.join(" ")} (server): ${got.server.stderr}`);
      assert.equal(sameMoment(got.server.stdout), sameMoment(got.direct.stdout), args.join(" "));
    }
    // The model call's line names what was called, never what was said.
    const models = cli(remote, ["audit", "tail", "--kind", "model_call"]).stdout.trimEnd().split("\n");
    assert.equal(models.length, 1, models.join("\n"));
    assert.match(models[0]!, /\bok\s+model_call\s+writer\s+-\s+llm\.openai\s+allow\s+gpt-modes in 300 out 20 end_turn attempts 1 \(2 msgs, 1 tools, api\.openai\.com\)$/);
  });

  it("exits the same way when the answer is no", () => {
    const rows: Array<[string[], number, RegExp]> = [
      [["runs", "show", "run_nope"], 1, /no run run_nope/],
      [["runs", "watch", "run_nope"], 1, /no run run_nope/],
      [["approvals", "approve", approvalId], 1, /not pending|already|used/],
      [["approvals", "deny", "apr_nope"], 1, /apr_nope/],
      [["secret", "rm", "nope"], 1, /secret nope: not found/],
      [["plugin", "info", "nope"], 2, /no plugin named nope is installed/],
      [["plugin", "remove", "nope"], 2, /nope/],
      [["tools", "--agent", "nobody"], 2, /nobody/],
      [["runs", "list", "--status", "done"], 2, /--status done: expected one of/],
      [["audit", "tail", "--since", "yesterday"], 2, /--since yesterday: expected an ISO date/],
      [["audit", "tail", "--kind", "llm"], 2, /--kind llm: expected one of tool_call, host_call, model_call/],
      [["audit", "tail", "--cursor", "bogus"], 2, /^clawhive: --cursor: is not a cursor this log issued/],
      [["runs", "cancel", "run_nope"], 1, /no run run_nope/],
      [["runs", "cancel", runId], 1, /has already ended/],
    ];
    for (const [args, code, message] of rows) {
      const got = both(args);
      for (const [mode, result] of Object.entries(got)) {
        assert.equal(result.code, code, `${args.join(" ")} (${mode}): ${result.stderr}`);
        assert.match(result.stderr, message, `${args.join(" ")} (${mode})`);
      }
    }
  });

  it("--json prints the same records for the same things", () => {
    // runs: one path, the API's fields in both modes; an audit page longer than the API's (500) is read in pages alike.
    const rows = [["plugin", "list"], ["tools"], ["approvals", "list", "--status", "all"], ["audit", "tail", "--limit", "50"], ["audit", "tail", "--limit", "600"], ["secret", "list"], ["plugin", "info", "files"], ["runs", "list"], ["runs", "show", runId]];
    for (const args of rows) {
      const got = both([...args, "--json"]);
      assert.equal(got.direct.code, 0, got.direct.stderr);
      assert.equal(got.server.code, 0, got.server.stderr);
      assert.deepEqual(JSON.parse(got.server.stdout), JSON.parse(got.direct.stdout), args.join(" "));
    }
  });

  it("--json of runs and agents gives the fields the API has, the same in both modes", () => {
    const runs = both(["runs", "list", "--json"]);
    const [fromStore, fromServer] = [JSON.parse(runs.direct.stdout) as Record<string, unknown>[], JSON.parse(runs.server.stdout) as Record<string, unknown>[]];
    assert.equal(fromServer.length, fromStore.length);
    for (const [i, run] of fromServer.entries()) for (const [key, value] of Object.entries(run)) assert.deepEqual(value, fromStore[i]![key], `runs[${i}].${key}`);
    const agents = both(["agent", "list", "--json"]);
    const [a, b] = [JSON.parse(agents.direct.stdout) as Record<string, unknown>[], JSON.parse(agents.server.stdout) as Record<string, unknown>[]];
    // Not `origin`: a server told no agents dir calls its file agents the runtime's own.
    const common = (x: Record<string, unknown>) => ({ name: x.name, valid: x.valid, description: x.description, model: x.model, plugins: x.plugins, capabilities: x.capabilities });
    assert.deepEqual(b.map(common), a.map(common));
    assert.ok(a[0]!.manifest, "the store's listing carries each manifest");
  });

  it("--json on every listing parses, in both modes", () => {
    for (const args of [["plugin", "list"], ["agent", "list"], ["approvals", "list"], ["runs", "list"], ["audit", "tail"], ["secret", "list"], ["tools"]]) {
      for (const [mode, result] of Object.entries(both([...args, "--json"]))) {
        assert.equal(result.code, 0, `${args.join(" ")} (${mode}): ${result.stderr}`);
        assert.ok(Array.isArray(JSON.parse(result.stdout)), `${args.join(" ")} (${mode})`);
      }
    }
    const tokens = cli(direct, ["token", "list", "--json"]);
    assert.equal(tokens.code, 0, tokens.stderr);
    assert.ok(Array.isArray(JSON.parse(tokens.stdout)));
  });
});

describe("talking to a server", () => {
  it("a wrong or revoked token exits 2 and says what to check; a missing server exits 1", async () => {
    const wrong = cli({ kind: "server", server, token: `chv_tok_0123456789abcdef_${"A".repeat(43)}` }, ["runs", "list"]);
    assert.equal(wrong.code, 2, wrong.stderr);
    assert.match(wrong.stderr, /the bearer token is unknown or revoked; check --token-file or CLAWHIVE_TOKEN/);
    assert.doesNotMatch(wrong.stderr, /AAAAAAAA/, "the token is never repeated");
    const port = await closedPort();
    const gone = cli(direct, ["runs", "list", "--server", `http://127.0.0.1:${port}`, "--token", "x"], { env: { CLAWHIVE_DATA_DIR: "" } });
    assert.equal(gone.code, 1, gone.stderr);
    assert.match(gone.stderr, new RegExp(`cannot reach the clawhive server at http://127\\.0\\.0\\.1:${port}: ECONNREFUSED; is 'clawhive serve' running there\\?`));
  });

  it("secret set says the same in both modes, whichever set it first; the value is never printed", () => {
    const rows: Array<[name: string, value: string, note: boolean]> = [
      ["modes_long", "a-long-enough-secret-value", false],
      ["modes_short", "abc", true],
    ];
    for (const [name, value, note] of rows) {
      for (const [first, second] of [[direct, remote], [remote, direct]] as const) {
        const made = cli(first, ["secret", "set", name], { input: `${value}\n` });
        const again = cli(second, ["secret", "set", name], { input: `${value}\n` });
        for (const [result, verb] of [[made, "created"], [again, "updated"]] as const) {
          assert.equal(result.code, 0, result.stderr);
          assert.equal(result.stdout, `${verb} secret ${name}\n`);
          assert.equal(/shorter than \d+ characters, so it is not redacted/.test(result.stderr), note, result.stderr);
          assert.ok(!result.stdout.includes(value) && !result.stderr.includes(value), "the value was printed");
        }
        assert.equal(made.stderr, again.stderr);
        const removed = cli(second === direct ? remote : direct, ["secret", "rm", name]);
        assert.equal(removed.stdout, `removed secret ${name}\n`, removed.stderr);
      }
    }
    const listed = both(["secret", "list", "--json"]);
    assert.equal(listed.server.stdout, listed.direct.stdout);
    assert.deepEqual(JSON.parse(listed.direct.stdout).map((s: { name: string }) => s.name), ["modes_token"]);
  });

  it("a token's role limits it; a client token's runs are its own", () => {
    const created = cli(direct, ["token", "create", "--role", "client", "--name", "modes"]);
    assert.equal(created.code, 0, created.stderr);
    const client: Mode = { kind: "server", server, token: created.stdout.trim() };
    const forbidden = cli(client, ["plugin", "list"]);
    assert.equal(forbidden.code, 2, forbidden.stderr);
    assert.match(forbidden.stderr, /the token's role may not do this/);
    const mine = cli(client, ["runs", "list", "--json"]);
    assert.equal(mine.code, 0, mine.stderr);
    assert.deepEqual(JSON.parse(mine.stdout), []);
  });

  it("reads the token from --token-file and refuses what does not combine", async () => {
    const file = join(place.root, "admin.token");
    await writeFile(file, `${server.token}\n`, { mode: 0o600 });
    const env = { CLAWHIVE_TOKEN: "" };
    const viaFile = cli(remote, ["plugin", "list", "--token-file", file], { env });
    assert.equal(viaFile.code, 0, viaFile.stderr);
    const rows: Array<[string[], Record<string, string>, RegExp]> = [
      [["runs", "list"], env, /the API needs a token: set CLAWHIVE_TOKEN or pass --token-file/],
      [["runs", "list", "--server", server.url, "--data-dir", place.data], {}, /--data-dir and --server do not combine/],
      [["runs", "list", "--token-file", file], { CLAWHIVE_SERVER: "" }, /--token-file is for the API: give --server URL too/],
      [["runs", "list", "--server", "ftp://x"], {}, /--server ftp:\/\/x: expected an http:\/\/ or https:\/\/ URL/],
      [["runs", "list", "--token-file", join(place.root, "none")], {}, /--token-file .*none: cannot read it: ENOENT/],
      [["approvals", "approve", approvalId, "--by", "me"], {}, /--by does not combine with --server/],
      [["agent", "put", join(place.agents, "writer.yaml")], { CLAWHIVE_SERVER: "" }, /agent put works through a server only/],
      [["api", "/v1/nope"], {}, /no route|not found/i],
    ];
    for (const [args, extra, message] of rows) {
      const result = cli(remote, args, { env: extra });
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(" "));
    }
  });

  it("clawhive api makes any request: /health, /v1/openapi.json", () => {
    const health = cli(remote, ["api", "/health"]);
    assert.equal(health.code, 0, health.stderr);
    assert.equal(JSON.parse(health.stdout).status, "ok");
    const openapi = cli(remote, ["api", "GET", "/v1/openapi.json"]);
    assert.equal(openapi.code, 0, openapi.stderr);
    assert.ok(JSON.parse(openapi.stdout).paths["/v1/plugins"]);
  });

  it("installs a package folder and a .tgz, upgrades with the permission diff, removes: the same lines on the store and through a server", async () => {
    const echo = await echoComponent();
    const v1 = await writePackage(place.root, "echo-v1", { ...echo.manifest, sha256: echo.sha256 }, echo.bytes);
    const tgz = await packTgz(v1, join(place.root, "echo-0.1.0.tgz"));
    const v2 = await writePackage(place.root, "echo-v2", { ...echo.manifest, version: "0.2.0", capabilities: ["fs.read", "kv", "log"] }, echo.bytes);
    const printed = new Map<string, string[]>();
    // One code path: each mode runs the same steps on the same store, and prints the same lines.
    for (const mode of [remote, direct]) {
      const out: string[] = [];
      const installed = cli(mode, ["plugin", "install", v1]);
      assert.equal(installed.code, 0, installed.stderr);
      if (mode === remote) assert.match(installed.stderr, /^sending bench-echo@0\.1\.0 from .*echo-v1, packed \(\d+\.\d MiB\) to http:\S+; the server verifies and installs it$/m);
      else assert.doesNotMatch(installed.stderr, /sending/, "in this process the runtime reads the folder itself: nothing is packed or sent");
      assert.match(installed.stdout, new RegExp(`^installed bench-echo@0\\.1\\.0 \\(component, \\d+\\.\\d MiB, sha256 ${echo.sha256}\\)$`, "m"));
      out.push(installed.stdout);
      const again = cli(mode, ["plugin", "install", tgz, "--json"]);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).action, "unchanged");
      const origin = JSON.parse(cli(mode, ["plugin", "info", "bench-echo", "--json"]).stdout).origin as string;
      // A server never reads a path it is sent: it installs the upload; in this process the runtime read the folder.
      if (mode === remote) assert.match(origin, /^upload by tok_/);
      else assert.equal(origin, v1);

      const refused = cli(mode, ["plugin", "upgrade", "bench-echo", v2]);
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(refused.stderr, /^upgrading bench-echo widens what it may do:\n {2}\+ capability log\n/m);
      assert.match(refused.stderr, /not upgraded: re-run with --accept/);
      const accepted = cli(mode, ["plugin", "upgrade", "Bench-Echo", v2, "--accept"]);
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.match(accepted.stdout, /^upgraded bench-echo@0\.2\.0/m);
      out.push(refused.stdout, accepted.stdout);
      const clash = cli(mode, ["plugin", "install", v1]);
      assert.equal(clash.code, 2, clash.stderr);
      assert.match(clash.stderr, /already installed/);
      const removed = cli(mode, ["plugin", "remove", "bench-echo"]);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(removed.stdout, "removed bench-echo@0.2.0\n");
      const gone = cli(mode, ["plugin", "remove", "bench-echo"]);
      assert.equal(gone.code, 2, gone.stderr);
      assert.match(gone.stderr, /no plugin named bench-echo is installed/);
      out.push(removed.stdout);
      printed.set(mode.kind, out);
    }
    assert.deepEqual(printed.get("direct"), printed.get("server"));
    // Who changed it: the store's user on the store, the token through a server.
    const tail = cli(direct, ["audit", "tail", "--kind", "plugin", "--json", "--limit", "1000"]);
    const by = new Set((JSON.parse(tail.stdout) as Array<{ plugin: string; plugin_event: { by: string } }>).filter((r) => r.plugin === "bench-echo").map((r) => r.plugin_event.by.replace(/:.*/, ":")));
    assert.deepEqual([...by].sort(), ["cli:", "token:"]);
  });

  it("stores, shows and removes an agent on the server", async () => {
    const file = join(place.root, "stored.yaml");
    await writeFile(file, (await import("./fixtures.js")).WRITER.replace("name: writer", "name: stored"));
    const put = cli(remote, ["agent", "put", file]);
    assert.equal(put.code, 0, put.stderr);
    assert.match(put.stdout, /^stored agent stored on http:/m);
    const shown = cli(remote, ["agent", "show", "stored", "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).origin, "store");
    assert.match(cli(remote, ["agent", "list"]).stdout, /^stored /m);
    const clash = cli(remote, ["agent", "rm", "writer"]);
    assert.equal(clash.code, 2, clash.stderr);
    assert.match(clash.stderr, /agent writer is defined by .*; it cannot be removed through the API/);
    const removed = cli(remote, ["agent", "rm", "stored"]);
    assert.equal(removed.code, 0, removed.stderr);
  });
});

describe("--help", () => {
  it("every command and subcommand has usage, flags, exit codes and an example", () => {
    const top = cli(direct, ["--help"]);
    assert.equal(top.code, 0);
    for (const name of ["run", "runs", "approvals", "plugin", "agent", "tools", "audit", "secret", "api"]) assert.match(top.stdout, new RegExp(`^ {2}${name} `, "m"));
    assert.match(top.stdout, /CLAWHIVE_SERVER/);
    const rows = [["run"], ["runs", "watch"], ["approvals", "approve"], ["plugin", "install"], ["agent", "put"], ["tools"], ["audit", "tail"], ["secret", "set"], ["api"]];
    for (const args of rows) {
      const { code, stdout } = cli(direct, [...args, "--help"]);
      assert.equal(code, 0, args.join(" "));
      for (const part of [/^ {2}clawhive /m, /--server URL/, /CLAWHIVE_TOKEN/, /Exit codes: 0/, /Example:\n {4}.*clawhive /]) assert.match(stdout, part, `${args.join(" ")} --help`);
    }
  });
});
