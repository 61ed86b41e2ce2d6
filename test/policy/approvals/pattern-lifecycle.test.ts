import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseAgentManifest } from "../../../runtime/agents/index.js";
import type { PatternEventInput } from "../../../runtime/audit/index.js";
import { ApprovalStore } from "../../../runtime/policy/approvals/index.js";
import { openStore } from "../../../runtime/store/index.js";
import { MINUTE, testClock, toolCallRequest, withHarness } from "./_fixtures.js";
import type { Harness } from "./_fixtures.js";

// A pattern's life: put in force only once audited, ended with its run when it serves one run.

const home = mkdtempSync(join(tmpdir(), "pattern-life-"));
mkdirSync(join(home, "notes"));
const writer = parseAgentManifest(
  `name: writer
description: pattern lifecycle agent
model: { provider: anthropic, id: test-model }
system_prompt: test
plugins:
  - { name: files, version: "*", tools: [write_file] }
grants:
  fs.write:
    mounts: [{ guest: /notes, host: ${home}/notes, mode: rw }]
`,
  { file: "writer.yaml", baseDir: home },
).manifest;

const PATTERN = { tool: "files.write_file", arguments: { path: "notes/*" } };
const MATCH = { agent: "writer", runId: "run_1", kind: "tool_call" as const, tool: "files.write_file", arguments: { path: "notes/b.txt", text: "x" } };

async function approve(h: Harness, appliesTo: "run" | "agent", runId = "run_1") {
  const request = await h.approvals.request(toolCallRequest({ runId }));
  return h.approvals.approveByPattern(request.id, { pattern: PATTERN, expiresAt: h.clock.now() + 60 * MINUTE, appliesTo, by: "alice", agent: writer });
}

/** An audit sink that records, or fails while `failing` is set. */
function sink() {
  const events: PatternEventInput[] = [];
  const state = { failing: false };
  const audit = async (event: PatternEventInput) => {
    if (state.failing) throw new Error("audit log unavailable");
    events.push(event);
  };
  return { events, state, audit };
}

test("a relative files path is offered and approved by pattern (control for the faults below)", async () => {
  const log = sink();
  await withHarness(async (h) => {
    const { pattern } = await approve(h, "agent");
    assert.equal(pattern.status, "active");
    assert.equal((await h.approvals.matchPattern({ ...MATCH, runId: "run_9" }))?.id, pattern.id);
    assert.deepEqual(log.events.map((e) => e.action), ["create"]);
  }, { audit: log.audit });
});

test("a pattern whose creation cannot be audited is never in force", async () => {
  const log = sink();
  await withHarness(async (h) => {
    log.state.failing = true;
    await assert.rejects(approve(h, "agent"), /audit log unavailable/);
    log.state.failing = false;
    assert.equal(await h.approvals.matchPattern(MATCH), undefined, "no call matches it");
    assert.deepEqual(await h.approvals.listPatterns({ status: "active" }), []);
    const [stored] = await h.approvals.listPatterns();
    assert.equal(stored?.status, "revoked");
    assert.match(stored?.revokedBy ?? "", /could not be audited/);
  }, { audit: log.audit });
});

test("a revoke whose audit fails still leaves the pattern revoked", async () => {
  const log = sink();
  await withHarness(async (h) => {
    const { pattern } = await approve(h, "agent");
    log.state.failing = true;
    await assert.rejects(h.approvals.revokePattern(pattern.id, "bob"), /audit log unavailable/);
    assert.equal(await h.approvals.matchPattern(MATCH), undefined);
    assert.equal((await h.approvals.getPattern(pattern.id))?.status, "revoked");
  }, { audit: log.audit });
});

// [how the run ended] — every end goes through withdrawForRun with its reason.
const ENDS = ["run run_1 ended (completed) before the approval was used", "run run_1 ended (failed) before the approval was used", "run run_1 was cancelled", "run run_1 ended (timeout) before the approval was used"];
for (const reason of ENDS) {
  test(`an applies_to: run pattern ends with its run: ${reason}`, async () => {
    const log = sink();
    await withHarness(async (h) => {
      const forRun = (await approve(h, "run")).pattern;
      h.clock.advance(1); // the oldest pattern matches first: the run's, here
      const forAgent = (await approve(h, "agent", "run_2")).pattern;
      assert.equal((await h.approvals.matchPattern(MATCH))?.id, forRun.id, "control: in force while the run lives");
      await h.approvals.withdrawForRun("run_1", reason);
      const ended = (await h.approvals.getPattern(forRun.id))!;
      assert.equal(ended.status, "expired");
      assert.equal(ended.expiresAt, h.clock.now());
      assert.equal((await h.approvals.getPattern(forAgent.id))?.status, "active", "control: an agent-wide pattern outlives the run");
      assert.equal((await h.approvals.matchPattern(MATCH))?.id, forAgent.id, "only the agent-wide one matches now");
      const withdraw = log.events.find((e) => e.action === "withdraw");
      assert.equal(withdraw?.id, forRun.id);
      assert.equal(withdraw?.by, `runtime: ${reason}`);
    }, { audit: log.audit });
  });
}

test("a run's end on one node ends its pattern for another node sharing the store", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pattern-nodes-"));
  const clock = testClock();
  const url = `file:${join(dir, "store.db")}`;
  const storeA = await openStore({ url, clock });
  const storeB = await openStore({ url, clock });
  try {
    const a = await ApprovalStore.open(storeA, { clock });
    const b = await ApprovalStore.open(storeB, { clock });
    const request = await a.request(toolCallRequest());
    const { pattern } = await a.approveByPattern(request.id, { pattern: PATTERN, expiresAt: clock.now() + 60 * MINUTE, appliesTo: "run", by: "alice", agent: writer });
    assert.equal((await b.matchPattern(MATCH))?.id, pattern.id, "control: node B matches it while the run lives");
    await a.withdrawForRun("run_1", "run run_1 ended (completed) before the approval was used");
    assert.equal(await b.matchPattern(MATCH), undefined);
    assert.deepEqual((await b.listPatterns({ status: "expired" })).map((p) => p.id), [pattern.id]);
  } finally {
    await storeA.close();
    await storeB.close();
  }
});

