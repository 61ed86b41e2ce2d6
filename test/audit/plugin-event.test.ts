import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { auditMigrations, LibsqlAuditLog, openAuditLog } from "../../runtime/audit/index.js";
import type { PluginEventInput } from "../../runtime/audit/index.js";
import { InvalidInputError } from "../../runtime/errors.js";
import { applyMigrations, openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { tempDir } from "../store/temp-store.js";
import { dropAppendOnlyGuards, hostDenial, hostIntent, ManualClock, openTempAuditLog } from "./fixtures.js";

const SHA = "a".repeat(64);

function event(overrides: Partial<PluginEventInput> = {}): PluginEventInput {
  return { action: "install", decision: "allow", name: "files", version: "1.0.0", sha256: SHA, publisher: "clawhive", origin: "/plugins/files", by: "cli:alice", reason: "installed", ...overrides };
}

/** Records of every earlier kind, written with the v2 schema only (as a runtime before plugin records did). */
async function writeV2(store: Store, clock: ManualClock): Promise<void> {
  await applyMigrations(store, auditMigrations.slice(0, 2), { clock });
  const log = new LibsqlAuditLog(store, { clock });
  const intent = await log.appendIntent(hostIntent());
  await log.appendOutcome(intent, { status: "ok", resultSize: 3 });
  await log.appendDenial(hostDenial());
  await log.appendModelCall({ traceId: "t", runId: "r", agent: "a", provider: "openai", model: "m", tools: [], messages: 1, maxTokens: 10, attempts: 1, status: "ok", startAt: clock.now() });
  await log.flush();
  // The v2 table refuses the new kind: what migration 3 is for.
  await assert.rejects(log.appendPluginEvent(event()), /CHECK constraint|constraint/i);
  await log.close();
}

describe("audit migration 3: plugin records", () => {
  for (const driver of ["embedded", "client"] as const) {
    it(`keeps the chain of earlier records verifiable across the rebuild (${driver} driver)`, async () => {
      const dir = await tempDir();
      const clock = new ManualClock();
      try {
        const first = await openStore({ url: dir.url(), driver });
        await writeV2(first, clock);
        const before = (await first.execute("SELECT * FROM audit_records ORDER BY seq")).rows.map((r) => ({ ...r }));
        await first.close();
        const second = await openStore({ url: dir.url(), driver });
        const log = await openAuditLog(second, { clock });
        try {
          const after = (await second.execute("SELECT * FROM audit_records ORDER BY seq")).rows.map((r) => ({ ...r }));
          assert.deepEqual(after, before);
          const record = await log.appendPluginEvent(event());
          assert.equal(record.seq, before.length + 1);
          const report = await log.verify();
          assert.equal(report.ok, true, JSON.stringify(report.issues));
          assert.equal(report.records, before.length + 1);
          await assert.rejects(second.execute("DELETE FROM audit_records WHERE seq = 1"), /append-only/);
          // A row written before the migration is still covered by the chain.
          await dropAppendOnlyGuards(second);
          await second.execute("UPDATE audit_records SET agent = 'someone-else' WHERE seq = 1");
          assert.deepEqual((await log.verify()).issues.map((i) => [i.seq, i.kind]), [[1, "altered"]]);
        } finally {
          await log.close();
          await second.close();
        }
      } finally {
        await dir.remove();
      }
    });
  }
});

describe("plugin records", () => {
  it("stores an allowed and a refused change, queryable by kind, with who asked", async () => {
    const t = await openTempAuditLog();
    try {
      await t.log.appendIntent(hostIntent());
      const allowed = await t.log.appendPluginEvent(event());
      const refused = await t.log.appendPluginEvent(
        event({ action: "install", decision: "deny", name: "fi1es", reason: "plugin_name_similar", message: "plugin name fi1es is confusable with files", by: "token:tok_0123456789abcdef" }),
      );
      assert.equal(allowed.kind, "plugin");
      assert.equal(allowed.status, "ok");
      assert.equal(allowed.decision, "allow");
      assert.equal(allowed.plugin, "files");
      assert.deepEqual(allowed.hostCall, { proxy: "plugin", function: "install" });
      assert.deepEqual(allowed.pluginEvent, { action: "install", name: "files", version: "1.0.0", sha256: SHA, publisher: "clawhive", origin: "/plugins/files", by: "cli:alice", reason: "installed" });
      assert.equal(refused.status, "denied");
      assert.equal(refused.decision, "deny");
      assert.deepEqual(refused.denial, { capability: "plugin.install", reason: "plugin_name_similar", message: "plugin name fi1es is confusable with files" });
      assert.equal(refused.pluginEvent?.by, "token:tok_0123456789abcdef");
      const page = await t.log.query({ kind: "plugin" });
      assert.deepEqual(page.records.map((r) => r.seq), [allowed.seq, refused.seq]);
      assert.equal((await t.log.verify()).ok, true);
    } finally {
      await t.cleanup();
    }
  });

  it("redacts a secret value in what the record carries (an origin URL's token)", async () => {
    const secret = "s3cr3t-registry-token-value";
    const t = await openTempAuditLog({ redaction: { secrets: () => [secret] } });
    try {
      const record = await t.log.appendPluginEvent(event({ origin: `https://registry.example/files.tgz?token=${secret}` }));
      assert.ok(!(record.args ?? "").includes(secret));
    } finally {
      await t.cleanup();
    }
  });

  const invalid: Array<[string, Partial<PluginEventInput>, string]> = [
    ["an unknown action", { action: "replace" as PluginEventInput["action"] }, "action"],
    ["an unknown decision", { decision: "maybe" as PluginEventInput["decision"] }, "decision"],
    ["no name", { name: "" }, "name"],
    ["no principal", { by: "" }, "by"],
    ["no reason", { reason: "" }, "reason"],
    ["a hash that is not sha256", { sha256: "abc" }, "sha256"],
  ];
  for (const [label, overrides, field] of invalid) {
    it(`refuses ${label} (and stores the control)`, async () => {
      const t = await openTempAuditLog();
      try {
        await assert.rejects(t.log.appendPluginEvent(event(overrides)), (error: unknown) => error instanceof InvalidInputError && error.field === field);
        assert.equal((await t.log.appendPluginEvent(event())).kind, "plugin");
      } finally {
        await t.cleanup();
      }
    });
  }
});
