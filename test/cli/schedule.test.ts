import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BIN, cliPlace, type CliPlace } from "./fixtures.js";

// The real binary once main.ts lists `schedule`; until then the command through an entry that
// handles its errors as main does (test/schedules/cli-entry.js).
const WIRED = spawnSync(process.execPath, [BIN, "schedule", "--help"], { encoding: "utf8" }).status === 0;
const COMMAND = WIRED ? [BIN, "schedule"] : [new URL("../schedules/cli-entry.js", import.meta.url).pathname];
let place: CliPlace;

function schedule(...args: string[]) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("CLAWHIVE_") && name !== "CLAWHIVE_BUILD_CACHE") delete env[name];
  const result = spawnSync(process.execPath, [...COMMAND, ...args, "--data-dir", place.data], { encoding: "utf8", timeout: 300_000, env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

before(async () => {
  place = await cliPlace("clawhive-cli-schedule-");
});
after(() => rm(place.root, { recursive: true, force: true }));

describe("clawhive schedule", () => {
  it("create, list, show and cancel a cron schedule on the store", () => {
    const created = schedule("create", "writer", "tidy the workspace", "--cron", "0 7 * * *", "--tz", "Europe/Stockholm", "--max-runs", "5", "--agents", place.agents);
    assert.equal(created.code, 0, created.stderr);
    const id = /created schedule (sch_\S+):/.exec(created.stdout)?.[1];
    assert.ok(id, created.stdout);
    assert.match(created.stdout, /cron "0 7 \* \* \*" in Europe\/Stockholm, at most 5 runs; next run \d{4}-\d\d-\d\dT06:00:00\.000Z/);

    const listed = schedule("list", "--json");
    assert.equal(listed.code, 0, listed.stderr);
    const [view] = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    assert.equal(view?.id, id);
    assert.equal(view?.status, "active");
    assert.ok((view?.grants as Record<string, unknown>)["fs.write"], "the agent's whole grant, captured");
    assert.match(schedule("list").stdout, new RegExp(`${id}  active`));

    const shown = schedule("show", id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /agent:\s+writer/);
    assert.match(shown.stdout, /no firings yet/);

    assert.equal(schedule("cancel", id).code, 0);
    assert.match(schedule("show", id).stdout, /status:\s+cancelled/);
    const again = schedule("cancel", id);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already cancelled/);
    assert.equal(schedule("list", "--status", "active", "--json").stdout.trim(), "[]");
  });

  it("a one-shot with a narrower grant keeps exactly that grant", () => {
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const grants = JSON.stringify({ "fs.read": { mounts: [{ guest: "/workspace", host: realpathSync(join(place.data, "workspace")) }] } });
    const created = schedule("create", "writer", "read only", "--at", at, "--grants", grants, "--agents", place.agents);
    assert.equal(created.code, 0, created.stderr);
    const id = /created schedule (sch_\S+):/.exec(created.stdout)![1]!;
    const shown = JSON.parse(schedule("show", id, "--json").stdout) as { schedule: { grants: Record<string, unknown>; kind: string } };
    assert.equal(shown.schedule.kind, "once");
    assert.deepEqual(Object.keys(shown.schedule.grants), ["fs.read"]);
  });

  const refused: Array<[what: string, args: string[], pattern: RegExp]> = [
    ["no time", ["create", "writer", "t"], /at, cron: give exactly one/],
    ["a bad cron", ["create", "writer", "t", "--cron", "sometimes"], /cron: "sometimes"/],
    ["a time without an offset", ["create", "writer", "t", "--at", "2030-01-01T09:00"], /--at .*offset/],
    ["a past time", ["create", "writer", "t", "--at", "2020-01-01T09:00:00Z"], /at: .* has passed/],
    ["a grant wider than the agent's", ["create", "writer", "t", "--at", "2099-01-01T00:00:00Z", "--grants", '{"fs.read": {"mounts": [{"guest": "/srv", "host": "/srv"}]}}'], /grants\.fs\.read.*only narrow/],
    ["an unknown agent", ["create", "ghost", "t", "--at", "2099-01-01T00:00:00Z"], /agent ghost: no such agent/],
    ["a bad --max-runs", ["create", "writer", "t", "--cron", "* * * * *", "--max-runs", "many"], /--max-runs many/],
    ["an unknown subcommand", ["every"], /unknown schedule command 'every'/],
  ];
  for (const [what, args, pattern] of refused) {
    it(`refuses ${what} (exit 2), storing nothing`, () => {
      const before = schedule("list", "--json").stdout;
      const answer = schedule(...args, "--agents", place.agents);
      assert.equal(answer.code, 2, answer.stderr);
      assert.match(answer.stderr, pattern);
      assert.equal(schedule("list", "--json").stdout, before);
    });
  }

  it("show of an unknown id exits 1", () => {
    const answer = schedule("show", "sch_nope");
    assert.equal(answer.code, 1);
    assert.match(answer.stderr, /schedule sch_nope: not found/);
  });
});
