import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ToolCallOutcome } from "../../runtime/index.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { apiFixture, type ApiFixture } from "../api/routes-fixtures.js";
import { csrfOf, getPage, postForm, signIn, type Browserish } from "./fixtures.js";

// Pattern approvals in the console, over plain HTTP: offered, chosen (with CSRF), listed, revoked.

let f: ApiFixture;
let approver: Browserish;
let approvalId: string;

before(async () => {
  f = await apiFixture();
  const work = join(f.dataDir, "work");
  await mkdir(work);
  const agent = await defineTestAgent(f.runtime, "writer", { mounts: [{ guest: "/w", host: work, mode: "rw" }] });
  const run = await f.runtime.startRun({ agent, task: "docs" });
  const outcome: ToolCallOutcome = await run.callTool("files.write_file", { path: "/w/docs/a.md", content: "a" });
  assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
  approvalId = (outcome as Extract<ToolCallOutcome, { status: "approval_required" }>).approval.id;
  approver = await signIn(f.server.base, f.token.approver);
});
after(() => f.close());

test("the decision page offers the pattern choices; posting one with CSRF creates it; /patterns lists it; revoking there works", async () => {
  const detail = await getPage(approver, `/approvals/${approvalId}`);
  assert.equal(detail.status, 200);
  for (const summary of ["files.write_file path /w/docs/a.md", "files.write_file path /w/docs/*", "files.write_file path /w/docs/**"]) assert.ok(detail.text.includes(`Approve pattern: ${summary}`), summary);
  assert.match(detail.text, /<option value="today">today<\/option>/);
  const fields = { csrf: csrfOf(detail.text), decision: "approve", scope: "pattern", pattern_index: "2", expires_in: "today", applies_to: "agent" };

  // Without the CSRF token (or with another's) nothing is created; control: with it.
  const forged = await postForm(f.server.base, `/approvals/${approvalId}`, { ...fields, csrf: "x".repeat(43) }, { cookie: approver.cookie });
  assert.equal(forged.status, 403);
  assert.equal((await f.runtime.approvals.listPatterns({})).length, 0);
  const posted = await postForm(f.server.base, `/approvals/${approvalId}`, fields, { cookie: approver.cookie });
  assert.equal(posted.status, 303, await posted.text());
  const [pattern, ...others] = await f.runtime.approvals.listPatterns({});
  assert.equal(others.length, 0);
  assert.deepEqual(pattern!.arguments, { path: "/w/docs/**" });
  assert.equal(pattern!.runId, null);
  const midnight = new Date(pattern!.createdAt);
  midnight.setHours(24, 0, 0, 0);
  assert.equal(pattern!.expiresAt, midnight.getTime());

  const list = await getPage(approver, "/patterns");
  assert.equal(list.status, 200);
  assert.ok(list.text.includes(pattern!.id), "listed");
  assert.ok(list.text.includes(`/patterns/${pattern!.id}/revoke`), "with a revoke form");
  const revoked = await postForm(f.server.base, `/patterns/${pattern!.id}/revoke`, { csrf: csrfOf(list.text) }, { cookie: approver.cookie });
  assert.equal(revoked.status, 303, await revoked.text());
  assert.equal((await f.runtime.approvals.getPattern(pattern!.id))?.status, "revoked");
  assert.deepEqual((await f.runtime.audit.query({ kind: "approval_pattern" })).records.map((r) => r.patternEvent?.action), ["create", "revoke"]);
});
