import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Run, ToolCallOutcome } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

// What a pattern approval leaves in the hash-chained audit log, and an Unsafe effect under one.

const FILES = join(PROJECT_ROOT, "plugins", "files");
const SHELL = join(PROJECT_ROOT, "plugins", "shell");
let f: ApiFixture;
let work: string;
const now = Date.UTC(2026, 10, 22, 12);
const clock = { now: () => now };

before(async () => {
  f = await apiFixture({ runtime: { clock, pluginDirs: [FILES, SHELL] } });
  work = join(f.dataDir, "work");
  await mkdir(join(work, "docs"), { recursive: true });
  await writeFile(join(work, "a.txt"), "alpha\n");
  await writeFile(join(work, "b.txt"), "beta\n");
  await f.runtime.defineAgent({
    name: "writer",
    description: "writes docs",
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "files", version: "*" }],
    grants: { "fs.write": { mounts: [{ guest: "/w", host: work, mode: "rw" }] } },
  });
  for (const [name, open] of [["operator", true], ["closed", false]] as const) {
    await f.runtime.defineAgent({
      name,
      description: "runs a few commands",
      model: { provider: "anthropic", id: "test-model" },
      system_prompt: "test",
      plugins: [{ name: "shell", version: "*" }],
      grants: { "shell.exec": { mounts: [{ guest: "/workspace", host: work, mode: "rw" }], commands: [{ name: "cat" }] } },
      approvals: { unsafe_patterns: open ? ["shell.run_command"] : [] },
    });
  }
});
after(() => f.close());

function approvalIdOf(outcome: ToolCallOutcome | undefined): string {
  assert.equal(outcome?.status, "approval_required", JSON.stringify(outcome));
  return (outcome as Extract<ToolCallOutcome, { status: "approval_required" }>).approval.id;
}

const decide = (id: string, json: Record<string, unknown>) => call(f, "POST", `/v1/approvals/${id}`, { token: f.token.approver, json: { decision: "approve", ...json } });

async function patternRecords() {
  return (await f.runtime.audit.query({ kind: "approval_pattern", limit: 1000 })).records;
}

test("creating and revoking a pattern writes two chained records naming it; a refused creation writes none", async () => {
  const run = await f.runtime.startRun({ agent: "writer", task: "docs" });
  const id = approvalIdOf(await run.callTool("files.write_file", { path: "/w/docs/x.md", content: "x" }));
  const before = (await patternRecords()).length;

  // Refused (wider than the grant): 400, the approval stays pending, and nothing is recorded.
  const refused = await decide(id, { scope: "pattern", pattern: { tool: "files.write_file", arguments: { path: "/**" } }, expires_in: "2h" });
  assert.equal(refused.status, 400, refused.text);
  assert.equal((await patternRecords()).length, before);
  assert.equal((await f.runtime.approvals.get(id))?.status, "pending");

  const created = await decide(id, { scope: "pattern", pattern: { tool: "files.write_file", arguments: { path: "/w/docs/**" } }, expires_in: "2h", applies_to: "agent" });
  assert.equal(created.status, 200, created.text);
  const pattern = created.body.pattern;
  const revoked = await call(f, "DELETE", `/v1/approval-patterns/${pattern.id}`, { token: f.token.approver });
  assert.equal(revoked.status, 200, revoked.text);

  const records = (await patternRecords()).slice(before);
  assert.deepEqual(records.map((r) => [r.hostCall?.function, r.agent, r.tool, r.approvalResult, r.status]), [
    ["create", "writer", "files.write_file", `pattern:${pattern.id}`, "ok"],
    ["revoke", "writer", "files.write_file", `pattern:${pattern.id}`, "ok"],
  ]);
  const expected = {
    id: pattern.id,
    agent: "writer",
    tool: "files.write_file",
    capability: null,
    arguments: { path: "/w/docs/**" },
    appliesTo: "agent",
    runId: null,
    approvalId: id,
    expiresAt: new Date(now + 2 * 3_600_000).toISOString(),
    by: f.tokenId.approver,
  };
  assert.deepEqual(records[0]!.patternEvent, { action: "create", ...expected });
  assert.deepEqual(records[1]!.patternEvent, { action: "revoke", ...expected });
  const verify = await f.runtime.audit.verify();
  assert.equal(verify.ok, true, JSON.stringify(verify.issues));

  // Through the API too: the record's kind is filterable and its pattern_event is read back.
  const listed = await call(f, "GET", "/v1/audit?kind=approval_pattern&order=desc&limit=1", { token: f.token.admin });
  assert.equal(listed.status, 200, listed.text);
  assert.equal(listed.body.records[0].pattern_event.action, "revoke");
  assert.deepEqual(listed.body.records[0].pattern_event.arguments, { path: "/w/docs/**" });
  await run.end();
});

async function pendingCat(agent: string, argv: string[]): Promise<{ run: Run; id: string }> {
  const run = await f.runtime.startRun({ agent, task: "cat" });
  return { run, id: approvalIdOf(await run.callTool("shell.run_command", { argv })) };
}

test("an Unsafe effect under a pattern: the exact argv runs unasked, named pattern:<id>; more words, or no manifest permission, still ask", async () => {
  const first = await pendingCat("operator", ["cat", "a.txt"]);
  const shown = await call(f, "GET", `/v1/approvals/${first.id}`, { token: f.token.approver });
  assert.equal(shown.status, 200, shown.text);
  const exact = shown.body.approval.pattern_choices[0];
  assert.ok(exact, JSON.stringify(shown.body.approval));
  assert.deepEqual(exact.pattern.arguments.argv, "cat a.txt");
  const created = await decide(first.id, { scope: "pattern", pattern: exact.pattern, expires_in: "1h", applies_to: "agent" });
  assert.equal(created.status, 200, created.text);
  const patternId = created.body.pattern.id;
  assert.equal(created.body.pattern.kind, "effect");
  assert.equal((await first.run.resume())?.status, "ok");
  await first.run.end();

  // The agent without approvals.unsafe_patterns is offered no pattern and cannot be given one.
  const closed = await pendingCat("closed", ["cat", "a.txt"]);
  const closedShown = await call(f, "GET", `/v1/approvals/${closed.id}`, { token: f.token.approver });
  assert.deepEqual(closedShown.body.approval.pattern_choices, []);
  const closedRefused = await decide(closed.id, { scope: "pattern", pattern: exact.pattern, expires_in: "1h" });
  assert.equal(closedRefused.status, 400, closedRefused.text);
  assert.equal(closedRefused.body.error.field, "body.scope");
  await closed.run.end();

  const CASES: Array<[string, string, string[], boolean]> = [
    ["control: the exact argv, another run of the agent", "operator", ["cat", "a.txt"], true],
    ["one more word", "operator", ["cat", "a.txt", "b.txt"], false],
    ["another file", "operator", ["cat", "b.txt"], false],
    ["another agent, same grant, no unsafe_patterns", "closed", ["cat", "a.txt"], false],
  ];
  for (const [what, agent, argv, runs] of CASES) {
    const run = await f.runtime.startRun({ agent, task: what });
    const outcome = await run.callTool("shell.run_command", { argv });
    if (runs) {
      assert.equal(outcome.status, "ok", `${what}: ${JSON.stringify(outcome)}`);
      assert.equal((outcome as { output: { stdout: string } }).output.stdout, "alpha\n");
      const hostCalls = (await f.runtime.audit.query({ runId: run.id, kind: "host_call" })).records;
      assert.ok(hostCalls.some((r) => r.approvalResult === `pattern:${patternId}`), `${what}: ${JSON.stringify(hostCalls.map((r) => r.approvalResult))}`);
    } else {
      approvalIdOf(outcome);
    }
    await run.end();
  }
  const after = await call(f, "GET", `/v1/approval-patterns/${patternId}`, { token: f.token.approver });
  assert.equal(after.body.pattern.matched, 1);
});
