/**
 * Forbidden mount hosts through the API: a task grant that narrows to a symlink pointing at
 * the kernel or the runtime's own state, and a stored agent that mounts them, are 400 naming
 * the field and start or store nothing; a folder of its own beside them passes.
 */
import assert from "node:assert/strict";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { defineTestAgent } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let work = "";

before(async () => {
  f = await apiFixture();
  work = join(f.dataDir, "work");
  await mkdir(join(work, "sub"), { recursive: true });
  await symlink("/proc", join(work, "proc"));
  await symlink(f.dataDir, join(work, "data"));
  await symlink("/etc", join(work, "etc"));
  await defineTestAgent(f.runtime, "reader", { mounts: [{ guest: "/w", host: work, mode: "ro" }], plugins: ["files", "probe"] });
});
after(() => f.close());

const grantOf = (guest: string, host: string) => ({ "fs.read": { mounts: [{ guest, host }] } });

const RUN_GRANTS: Array<[what: string, grants: () => unknown, field: string | undefined, message: RegExp]> = [
  ["a symlink inside the agent's mount that points at /proc", () => grantOf("/w/proc", join(work, "proc")), "grants.fs.read.mounts[0].host", /resolved: \/proc\).*kernel's process table/],
  ["a child through that symlink", () => grantOf("/w/proc/self", join(work, "proc", "self")), "grants.fs.read.mounts[0].host", /lies inside \/proc/],
  ["a symlink to the data dir", () => grantOf("/w/data", join(work, "data")), "grants.fs.read.mounts[0].host", /data dir/],
  ["a symlink to /etc with a trailing slash", () => grantOf("/w/etc", `${join(work, "etc")}/`), "grants.fs.read.mounts[0].host", /\/etc/],
  ["a .. spelling that climbs to the data dir", () => grantOf("/w", `${work}/sub/../..`), "grants.fs.read.mounts[0].host", /data dir/],
  ["a relative host", () => grantOf("/w", "work"), "grants.fs.read.mounts[0].host", /absolute/],
  ["a folder of its own inside the mount (control)", () => grantOf("/w/sub", join(work, "sub")), undefined, /./],
];

for (const [what, grants, field, message] of RUN_GRANTS) {
  test(`POST /v1/runs grants: ${what} → ${field === undefined ? "accepted" : "400"}`, async () => {
    const before = (await f.runtime.records.list({ limit: 1000 })).length;
    const answer = await call(f, "POST", "/v1/runs", { json: { agent: "reader", tool_calls: [{ name: "probe.echo" }], grants: grants() } });
    if (field === undefined) {
      assert.ok(answer.status === 201 || answer.status === 202, answer.text);
      return;
    }
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.error.field, field, answer.text);
    assert.match(answer.body.error.message, message);
    assert.equal((await f.runtime.records.list({ limit: 1000 })).length, before, "no run was started");
  });
}

function agentYaml(name: string, host: string): string {
  return `name: ${name}
description: reads
model: { provider: anthropic, id: test-model }
system_prompt: test
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts:
      - { guest: /m, host: "${host}" }
`;
}

const AGENTS: Array<[what: string, host: () => string, ok: boolean]> = [
  ["/proc", () => "/proc", false],
  ["a symlink to /proc", () => join(work, "proc"), false],
  ["the data dir, relative", () => ".", false],
  ["the store file's folder via ..", () => "./work/..", false],
  ["the build cache", () => f.runtime.mountGuard.roots.buildCacheDir!, false],
  ["the install folder's node_modules", () => join(f.runtime.mountGuard.roots.installDir!, "node_modules"), false],
  ["/", () => "/", false],
  ["a workspace under the data dir (control)", () => "./workspace-ok", true],
];

for (const [what, host, ok] of AGENTS) {
  test(`PUT /v1/agents mounting ${what} → ${ok ? "stored" : "400 naming the host"}`, async () => {
    const name = `m${AGENTS.findIndex((a) => a[0] === what)}`;
    const answer = await call(f, "PUT", `/v1/agents/${name}`, { body: agentYaml(name, host()), type: "application/yaml" });
    if (ok) {
      assert.ok(answer.status === 200 || answer.status === 201, answer.text);
      return;
    }
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.error.field, "body.grants.fs.read.mounts[0].host", answer.text);
    assert.match(answer.body.error.message, /refused: .*a mount may not/);
    assert.equal((await call(f, "GET", `/v1/agents/${name}`)).status, 404, "nothing stored");
  });
}

const soon = (): string => new Date(Date.now() + 3_600_000).toISOString();

test("POST /v1/schedules: a captured grant narrowing to a symlink at /proc is 400 and stores nothing; a folder of its own is stored", async () => {
  const before = (await f.runtime.scheduler.list()).length;
  const refused = await call(f, "POST", "/v1/schedules", { json: { agent: "reader", task: "t", at: soon(), grants: grantOf("/w/proc", join(work, "proc")) } });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.body.error.field, "body.grants.fs.read.mounts[0].host", refused.text);
  assert.match(refused.body.error.message, /kernel's process table/);
  assert.equal((await f.runtime.scheduler.list()).length, before);
  const stored = await call(f, "POST", "/v1/schedules", { json: { agent: "reader", task: "t", at: soon(), grants: grantOf("/w/sub", join(work, "sub")) } });
  assert.equal(stored.status, 201, stored.text);
});
