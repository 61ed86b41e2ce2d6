import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Run, ToolCallOutcome } from "../../runtime/index.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let work: string;
let now = Date.UTC(2026, 10, 22, 12);
const clock = { now: () => now };
let n = 0;

before(async () => {
  f = await apiFixture({ runtime: { clock } });
  work = join(f.dataDir, "work");
  await mkdir(join(work, "docs"), { recursive: true });
});
after(() => f.close());

async function agent(options: { unsafe?: boolean; unsafePatterns?: boolean } = {}): Promise<string> {
  const name = `pat${++n}`;
  await f.runtime.defineAgent({
    name,
    description: `test agent ${name}`,
    model: { provider: "anthropic", id: "test-model" },
    system_prompt: "test",
    plugins: [{ name: "files", version: "*" }],
    grants: { log: {}, "fs.read": { mounts: [{ guest: "/w", host: work }] }, "fs.write": { mounts: [{ guest: "/w", host: work, mode: "rw" }] } },
    approvals: {
      raise_risk: options.unsafe ? [{ tool: "files.write_file", to: "unsafe" }] : [],
      unsafe_patterns: options.unsafePatterns ? ["files.write_file"] : [],
    },
  });
  return name;
}

async function write(run: Run, path: string): Promise<ToolCallOutcome> {
  return run.callTool("files.write_file", { path, content: `hello ${path}` });
}

function approvalIdOf(outcome: ToolCallOutcome): string {
  assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
  return (outcome as Extract<ToolCallOutcome, { status: "approval_required" }>).approval.id;
}

const approve = (id: string, json: Record<string, unknown>, token = f.token.approver) => call(f, "POST", `/v1/approvals/${id}`, { token, json: { decision: "approve", scope: "pattern", ...json } });

test("a pattern approval: offered narrowest first, approved for 2h, covers later calls of the agent's runs, audited by id, revoked", async () => {
  const name = await agent();
  const run = await f.runtime.startRun({ agent: name, task: "write docs" });
  const id = approvalIdOf(await write(run, "/w/docs/a.md"));
  const shown = await call(f, "GET", `/v1/approvals/${id}`, { token: f.token.approver });
  assert.equal(shown.status, 200, shown.text);
  assert.deepEqual(shown.body.approval.pattern_choices.map((c: { summary: string }) => c.summary), [
    "files.write_file path /w/docs/a.md",
    "files.write_file path /w/docs/*",
    "files.write_file path /w/docs/**",
  ]);
  const answer = await approve(id, { pattern: shown.body.approval.pattern_choices[2].pattern, expires_in: "2h", applies_to: "agent" });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.approval.status, "approved");
  const pattern = answer.body.pattern;
  assert.equal(pattern.status, "active");
  assert.equal(pattern.expires_at, new Date(now + 2 * 3_600_000).toISOString());
  assert.equal(pattern.created_by, f.tokenId.approver);
  assert.equal(pattern.run_id, null);
  assert.equal((await run.resume())?.status, "ok");

  // A later call in another run of the same agent: no person asked; the audit names the pattern.
  const second = await f.runtime.startRun({ agent: name, task: "more docs" });
  const ok = await write(second, "/w/docs/sub/b.md");
  assert.equal(ok.status, "ok", JSON.stringify(ok));
  assert.equal(await readFile(join(work, "docs/sub/b.md"), "utf8"), "hello /w/docs/sub/b.md");
  const records = await f.runtime.audit.query({ runId: second.id });
  assert.ok(records.records.some((r) => r.approvalResult === `pattern:${pattern.id}`), "the ToolCall record names the pattern");
  const listed = await call(f, "GET", `/v1/approval-patterns?agent=${name}`, { token: f.token.approver });
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.patterns.map((p: { id: string; matched: number }) => [p.id, p.matched]), [[pattern.id, 1]]);

  // Lookalikes never match: each asks a person; the canonical control beside them does not.
  const LOOKALIKES: Array<[string, boolean]> = [
    ["/w/docs/c.md", true],
    ["/w/docs/../c.md", false],
    ["/w/docs/%2e%2e/c.md", false],
    ["/w/docs\uff0fc.md", false],
    ["/w/Docs/c.md", false],
    ["/w/docs-other/c.md", false],
  ];
  for (const [path, covered] of LOOKALIKES) {
    // A run that asked waits: each lookalike gets a run of its own.
    const each = await f.runtime.startRun({ agent: name, task: "docs" });
    const outcome = await write(each, path);
    assert.equal(outcome.status === "approval_required", !covered, `${path}: ${JSON.stringify(outcome)}`);
    await each.end();
  }

  // Another agent's call with the same arguments is not covered.
  const other = await f.runtime.startRun({ agent: await agent(), task: "docs" });
  approvalIdOf(await write(other, "/w/docs/d.md"));

  // Revoked: the next call asks again; revoking twice is 409.
  const revoked = await call(f, "DELETE", `/v1/approval-patterns/${pattern.id}`, { token: f.token.approver });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal(revoked.body.pattern.status, "revoked");
  approvalIdOf(await write(second, "/w/docs/e.md"));
  assert.equal((await call(f, "DELETE", `/v1/approval-patterns/${pattern.id}`, { token: f.token.approver })).status, 409);
  for (const r of [run, second, other]) await r.end();
});

test("an expired pattern covers nothing; a run-scoped one only its run", async () => {
  const name = await agent();
  const run = await f.runtime.startRun({ agent: name, task: "docs" });
  const id = approvalIdOf(await write(run, "/w/docs/x1.md"));
  const answer = await approve(id, { pattern: { tool: "files.write_file", arguments: { path: "/w/docs/*" } }, expires_in: "30m" });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.pattern.run_id, run.id);
  await run.resume();
  assert.equal((await write(run, "/w/docs/x2.md")).status, "ok", "control: within the run and the expiry");
  const elsewhere = await f.runtime.startRun({ agent: name, task: "docs" });
  approvalIdOf(await write(elsewhere, "/w/docs/x3.md"));
  now += 31 * 60_000;
  approvalIdOf(await write(run, "/w/docs/x4.md"));
  const expired = await call(f, "GET", `/v1/approval-patterns/${answer.body.pattern.id}`, { token: f.token.approver });
  assert.equal(expired.body.pattern.status, "expired");
  await run.end();
  await elsewhere.end();
});

test("refusals, each beside a control that passes", async () => {
  const name = await agent();
  const unsafe = await agent({ unsafe: true });
  const opened = await agent({ unsafe: true, unsafePatterns: true });
  const pend = async (who: string, path: string) => {
    const run = await f.runtime.startRun({ agent: who, task: "t" });
    return { run, id: approvalIdOf(await write(run, path)) };
  };
  const docs = { tool: "files.write_file", arguments: { path: "/w/docs/**" } };
  const CASES: Array<[string, string, Record<string, unknown>, string, number, string | null]> = [
    ["wider than the grant", name, { pattern: { tool: "files.write_file", arguments: { path: "/**" } }, expires_in: "2h" }, f.token.approver, 400, "body.pattern.arguments.path"],
    ["another tool", name, { pattern: { tool: "files.delete_file", arguments: { path: "/w/docs/**" } }, expires_in: "2h" }, f.token.approver, 400, "body.pattern.tool"],
    ["not covering the call itself", name, { pattern: { tool: "files.write_file", arguments: { path: "/w/other/**" } }, expires_in: "2h" }, f.token.approver, 400, "body.pattern.arguments"],
    ["no expiry", name, { pattern: docs }, f.token.approver, 400, "body.expires_in"],
    ["over 30 days", name, { pattern: docs, expires_in: "31d" }, f.token.approver, 400, "body.expires_in"],
    ["an Unsafe effect without the manifest's permission", unsafe, { pattern: docs, expires_in: "2h" }, f.token.approver, 400, "body.scope"],
    ["a client-role token", name, { pattern: docs, expires_in: "2h" }, f.token.client, 403, null],
    ["control: within the grant", name, { pattern: docs, expires_in: "2h" }, f.token.approver, 200, null],
    ["control: an Unsafe effect the manifest opens to patterns", opened, { pattern: docs, expires_in: "2h" }, f.token.approver, 200, null],
  ];
  for (const [label, who, body, token, status, field] of CASES) {
    const { run, id } = await pend(who, "/w/docs/r.md");
    const answer = await approve(id, body, token);
    assert.equal(answer.status, status, `${label}: ${answer.text}`);
    if (field !== null) assert.equal(answer.body.error.field, field, label);
    await run.end();
  }
  const unsafeShown = await pend(unsafe, "/w/docs/s.md");
  assert.deepEqual((await call(f, "GET", `/v1/approvals/${unsafeShown.id}`, { token: f.token.approver })).body.approval.pattern_choices, [], "an Unsafe effect offers no pattern");
  const openedShown = await pend(opened, "/w/docs/s.md");
  assert.equal((await call(f, "GET", `/v1/approvals/${openedShown.id}`, { token: f.token.approver })).body.approval.pattern_choices.length, 3);
  assert.equal((await call(f, "GET", "/v1/approval-patterns", { token: f.token.client })).status, 403, "a client cannot list patterns");
  await unsafeShown.run.end();
  await openedShown.run.end();
});
