/** `clawhive schedule` on the store and through a running server: the same lines, the same exits. */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openStore } from "../../runtime/store/index.js";
import { cli, serve, type Mode, type Result, type Served } from "./client-fixtures.js";
import { cliPlace, type CliPlace } from "./fixtures.js";

let place: CliPlace;
let server: Served;
let direct: Mode;
let remote: Mode;
let cronId: string;
let onceId: string;

const idOf = (r: Result) => {
  assert.equal(r.code, 0, r.stderr);
  return /^created schedule (sch_\S+):/.exec(r.stdout)![1]!;
};

before(async () => {
  place = await cliPlace("clawhive-cli-schedule-modes-");
  server = await serve(place);
  direct = { kind: "direct", place };
  remote = { kind: "server", server };
  const made = cli(remote, ["schedule", "create", "writer", "tidy the workspace", "--cron", "0 7 * * *", "--tz", "Europe/Stockholm", "--max-runs", "5"]);
  assert.match(made.stdout, /cron "0 7 \* \* \*" in Europe\/Stockholm, at most 5 runs; next run \d{4}-\d\d-\d\dT0[56]:00:00\.000Z/);
  cronId = idOf(made);
  onceId = idOf(cli(direct, ["schedule", "create", "writer", "once, later", "--at", new Date(Date.now() + 86_400_000).toISOString()]));
});
after(async () => {
  await server?.stop();
  await rm(place.root, { recursive: true, force: true });
});

function both(args: readonly string[]): { direct: Result; server: Result } {
  return { direct: cli(direct, ["schedule", ...args]), server: cli(remote, ["schedule", ...args]) };
}

describe("clawhive schedule, on the store and through a server", () => {
  it("what one mode creates the other lists and shows, line for line", () => {
    for (const args of [["list"], ["list", "--json"], ["list", "--status", "active"], ["show", cronId], ["show", onceId, "--json"]]) {
      const got = both(args);
      assert.equal(got.direct.code, 0, `${args.join(" ")} (store): ${got.direct.stderr}`);
      assert.equal(got.server.code, 0, `${args.join(" ")} (server): ${got.server.stderr}`);
      assert.equal(got.server.stdout, got.direct.stdout, args.join(" "));
    }
    const listed = JSON.parse(both(["list", "--json"]).server.stdout) as Array<{ id: string; created_by: unknown }>;
    assert.deepEqual(listed.map((s) => s.id).sort(), [cronId, onceId].sort());
    assert.ok(listed.every((s) => s.created_by === null), "people made these");
  });

  it("exits the same way when the answer is no", () => {
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const rows: Array<[string[], number, RegExp]> = [
      [["show", "sch_nope"], 1, /schedule sch_nope: not found/],
      [["cancel", "sch_nope"], 1, /schedule sch_nope: not found/],
      [["create", "ghost", "t", "--at", future], 2, /agent ghost: no such agent/],
      [["create", "writer", "t", "--cron", "sometimes"], 2, /cron: "sometimes"/],
      [["create", "writer", "t", "--at", "2020-01-01T09:00:00Z"], 2, /at: .* has passed/],
      [["create", "writer", "t", "--at", "2030-01-01T09:00"], 2, /--at .*offset/],
      [["list", "--status", "nope"], 2, /--status nope: expected one of/],
      [["create", "writer", "t"], 2, /at, cron: give exactly one/],
      [["create", "writer", "t", "--at", future, "--grants", '{"fs.read": {"mounts": [{"guest": "/srv", "host": "/srv"}]}}'], 2, /grants\.fs\.read.*only narrow/],
    ];
    for (const [args, code, message] of rows) {
      for (const [mode, result] of Object.entries(both(args))) {
        assert.equal(result.code, code, `${args.join(" ")} (${mode}): ${result.stderr}`);
        assert.match(result.stderr, message, `${args.join(" ")} (${mode})`);
      }
    }
    assert.equal(JSON.parse(cli(direct, ["schedule", "list", "--json"]).stdout).length, 2, "nothing stored by a refusal");
  });

  it("cancels through the server; then both modes say it has ended", () => {
    const cancelled = cli(remote, ["schedule", "cancel", onceId]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal(cancelled.stdout, `cancelled schedule ${onceId}\n`);
    for (const [mode, result] of Object.entries(both(["cancel", onceId]))) {
      assert.equal(result.code, 1, `${mode}: ${result.stderr}`);
      assert.match(result.stderr, /already cancelled/, mode);
    }
    const shown = both(["show", onceId]);
    assert.equal(shown.server.stdout, shown.direct.stdout);
    assert.match(shown.direct.stdout, /status:\s+cancelled/);
  });

  it("a schedule made on the store is a person's, owned by no token; one made through a server is its token's", async () => {
    const store = await openStore({ url: `file:${join(place.data, "clawhive.db")}` });
    try {
      const owner = async (id: string) => (await store.execute({ sql: "SELECT owner_token FROM schedules WHERE id = ?", args: [id] })).rows[0]?.owner_token;
      assert.equal(await owner(onceId), null);
      assert.match(String(await owner(cronId)), /^tok_/);
    } finally {
      await store.close();
    }
  });

  it("--agents does not combine with --server", () => {
    const result = cli(remote, ["schedule", "create", "writer", "t", "--cron", "* * * * *", "--agents", place.agents]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--agents and --server do not combine/);
  });
});
