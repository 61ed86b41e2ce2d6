import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { auditMigrations, LibsqlAuditLog, openAuditLog } from "../../runtime/audit/index.js";
import type { PatternEventInput } from "../../runtime/audit/index.js";
import { InvalidInputError } from "../../runtime/errors.js";
import { applyMigrations, openStore } from "../../runtime/store/index.js";
import { tempDir } from "../store/temp-store.js";
import { hostIntent, ManualClock, openTempAuditLog } from "./fixtures.js";

const EXPIRES = Date.UTC(2026, 11, 7, 19);

function event(overrides: Partial<PatternEventInput> = {}): PatternEventInput {
  return { action: "create", id: "apt_1", agent: "writer", kind: "tool_call", tool: "files.write_file", arguments: { path: "/w/docs/**" }, runId: "run_1", approvalId: "apr_1", expiresAt: EXPIRES, by: "tok_alice", ...overrides };
}

describe("audit migration 4: approval_pattern records", () => {
  it("keeps the chain of earlier records verifiable across the rebuild", async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    try {
      const first = await openStore({ url: dir.url() });
      await applyMigrations(first, auditMigrations.slice(0, 3), { clock });
      const old = new LibsqlAuditLog(first, { clock });
      await old.appendOutcome(await old.appendIntent(hostIntent()), { status: "ok" });
      // The v3 table refuses the new kind: what migration 4 is for.
      await assert.rejects(old.appendPatternEvent(event()), /CHECK constraint|constraint/i);
      await old.close();
      const before = (await first.execute("SELECT * FROM audit_records ORDER BY seq")).rows.map((r) => ({ ...r }));
      await first.close();
      const second = await openStore({ url: dir.url() });
      const log = await openAuditLog(second, { clock });
      try {
        assert.deepEqual((await second.execute("SELECT * FROM audit_records ORDER BY seq")).rows.map((r) => ({ ...r })), before);
        await log.appendPatternEvent(event());
        const report = await log.verify();
        assert.equal(report.ok, true, JSON.stringify(report.issues));
        assert.equal(report.records, before.length + 1);
      } finally {
        await log.close();
        await second.close();
      }
    } finally {
      await dir.remove();
    }
  });
});

describe("approval_pattern records", () => {
  it("names the pattern, its agent, tool, globs, scope, expiry and who; a run pattern carries its run", async () => {
    const t = await openTempAuditLog();
    try {
      const run = await t.log.appendPatternEvent(event());
      const agent = await t.log.appendPatternEvent(event({ action: "revoke", id: "apt_2", runId: null }));
      assert.equal(run.kind, "approval_pattern");
      assert.equal(run.runId, "run_1");
      assert.equal(run.approvalResult, "pattern:apt_1");
      assert.deepEqual(run.hostCall, { proxy: "approval_pattern", function: "create" });
      assert.deepEqual(run.patternEvent, {
        action: "create", id: "apt_1", agent: "writer", tool: "files.write_file", capability: null, arguments: { path: "/w/docs/**" },
        appliesTo: "run", runId: "run_1", approvalId: "apr_1", expiresAt: new Date(EXPIRES).toISOString(), by: "tok_alice",
      });
      assert.equal(agent.runId, "");
      assert.equal(agent.patternEvent?.appliesTo, "agent");
      assert.deepEqual((await t.log.query({ kind: "approval_pattern" })).records.map((r) => r.seq), [run.seq, agent.seq]);
      assert.equal((await t.log.verify()).ok, true);
    } finally {
      await t.cleanup();
    }
  });

  const invalid: Array<[string, Partial<PatternEventInput>, string]> = [
    ["an unknown action", { action: "extend" as PatternEventInput["action"] }, "action"],
    ["no id", { id: "" }, "id"],
    ["no agent", { agent: "" }, "agent"],
    ["no principal", { by: "" }, "by"],
    ["an unknown kind", { kind: "run" as PatternEventInput["kind"] }, "kind"],
    ["an expiry that is not a time", { expiresAt: Number.NaN }, "expiresAt"],
  ];
  for (const [label, overrides, field] of invalid) {
    it(`refuses ${label} (and stores the control)`, async () => {
      const t = await openTempAuditLog();
      try {
        await assert.rejects(t.log.appendPatternEvent(event(overrides)), (error: unknown) => error instanceof InvalidInputError && error.field === field);
        assert.equal((await t.log.appendPatternEvent(event())).kind, "approval_pattern");
      } finally {
        await t.cleanup();
      }
    });
  }
});
