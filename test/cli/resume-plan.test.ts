import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cliPlace, clawhiveIn, type CliPlace } from "./fixtures.js";

let place: CliPlace;

before(async () => {
  place = await cliPlace("clawhive-cli-resume-plan-");
});

after(async () => {
  await rm(place.root, { recursive: true, force: true });
});

test("resume goes on with the rest of a run's tool calls once its approval is decided", () => {
  const started = clawhiveIn(
    place,
    "run", "writer", "write then list",
    "--call", `files.write_file=${JSON.stringify({ path: "/workspace/a.txt", content: "hi" })}`,
    "--call", `files.list_dir=${JSON.stringify({ path: "/workspace" })}`,
    "--agents", place.agents,
  );
  assert.equal(started.code, 3, started.stderr);
  const approval = /waits for approval (apr_\S+)/.exec(started.stderr)?.[1];
  const run = /run (run_\S+) waits/.exec(started.stderr)?.[1];
  assert.ok(approval && run, started.stderr);

  const waiting = clawhiveIn(place, "resume", run, "--agents", place.agents);
  assert.equal(waiting.code, 3, waiting.stderr);

  assert.equal(clawhiveIn(place, "approvals", "approve", approval).code, 0);
  const resumed = clawhiveIn(place, "resume", run, "--agents", place.agents, "--json");
  assert.equal(resumed.code, 0, resumed.stderr);
  const body = JSON.parse(resumed.stdout) as { status: string; outcomes: Array<{ tool: string; status: string }> };
  assert.equal(body.status, "ended");
  assert.deepEqual(body.outcomes.map((o) => [o.tool, o.status]), [["files.write_file", "ok"], ["files.list_dir", "ok"]]);
  return readFile(join(place.data, "workspace", "a.txt"), "utf8").then((text) => assert.equal(text, "hi"));
});
