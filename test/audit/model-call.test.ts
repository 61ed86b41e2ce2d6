import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { auditMigrations, LibsqlAuditLog, openAuditLog } from "../../runtime/audit/index.js";
import type { ModelCallInput } from "../../runtime/audit/index.js";
import { InvalidInputError } from "../../runtime/errors.js";
import { applyMigrations, openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { openTempStore, tempDir } from "../store/temp-store.js";
import { allStoredText, dropAppendOnlyGuards, hostIntent, hostDenial, ManualClock, openTempAuditLog, toolIntent } from "./fixtures.js";

function modelCall(overrides: Partial<ModelCallInput> = {}): ModelCallInput {
  return {
    traceId: "trace-1",
    taskId: "task-1",
    runId: "run-1",
    stepId: "step_1",
    agent: "mail",
    provider: "anthropic",
    model: "claude-test",
    baseUrl: "https://api.anthropic.com",
    messages: 3,
    tools: ["files.read-notes", "mail.send"],
    maxTokens: 1024,
    inputTokens: 120,
    outputTokens: 40,
    stopReason: "tool_use",
    attempts: 1,
    startAt: 1_700_000_000_000 - 250,
    status: "ok",
    ...overrides,
  };
}

/** Writes records with the v1 schema only, as a runtime before model_call records did. */
async function writeV1(store: Store, clock: ManualClock): Promise<void> {
  await applyMigrations(store, auditMigrations.slice(0, 1), { clock });
  const log = new LibsqlAuditLog(store, { clock });
  const intent = await log.appendIntent(hostIntent());
  await log.appendOutcome(intent, { status: "ok", resultSize: 12 });
  await log.appendDenial(hostDenial());
  const tool = await log.appendIntent(toolIntent());
  await log.appendOutcome(tool, { status: "error", error: { code: "boom", message: "it failed" } });
  // The v1 table refuses the new kind: what the migration is for.
  await assert.rejects(log.appendModelCall(modelCall()), /CHECK constraint|constraint/i);
  await log.close();
}

async function rowsOf(store: Store): Promise<unknown[]> {
  return (await store.execute("SELECT * FROM audit_records ORDER BY seq")).rows.map((row) => ({ ...row }));
}

async function checkMigrated(store: Store, before: unknown[], clock: ManualClock): Promise<void> {
  const log = await openAuditLog(store, { clock });
  try {
    // Every earlier row is there unchanged: seq, links, hashes and content.
    assert.deepEqual((await rowsOf(store)).slice(0, before.length), before);
    clock.advance(1000);
    const record = await log.appendModelCall(modelCall());
    assert.equal(record.seq, before.length + 1);
    const report = await log.verify();
    assert.equal(report.ok, true, JSON.stringify(report.issues));
    assert.equal(report.records, before.length + 1);
    assert.deepEqual(report.inFlight, []);
    assert.deepEqual((await log.query({ kind: "model_call" })).records.map((r) => r.seq), [record.seq]);
    // The append-only guards were rebuilt with the table; its indexes are the index table's since audit#5.
    const schema = await store.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'audit_records' AND type IN ('index', 'trigger') ORDER BY name");
    assert.deepEqual(schema.rows.map((r) => String(r.name)), ["audit_records_no_delete", "audit_records_no_update"]);
    const indexes = await store.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'audit_index' AND type = 'index' AND sql IS NOT NULL ORDER BY name");
    assert.deepEqual(
      indexes.rows.map((r) => String(r.name)),
      ["audit_index_agent", "audit_index_denied", "audit_index_error", "audit_index_run", "audit_index_start", "audit_index_tool", "audit_index_trace"],
    );
    assert.equal((await store.execute("SELECT count(*) AS n FROM sqlite_master WHERE name = 'audit_records_v2'")).rows[0]?.n, 0);
    await assert.rejects(store.execute("UPDATE audit_records SET agent = 'x' WHERE seq = 1"), /append-only/);
    await assert.rejects(store.execute("DELETE FROM audit_records WHERE seq = 1"), /append-only/);
    // Tampering with a row written before the migration is still caught.
    await dropAppendOnlyGuards(store);
    await store.execute(`UPDATE audit_records SET args = '{"path":"/etc/shadow"}' WHERE seq = 1`);
    const tampered = await log.verify();
    assert.equal(tampered.ok, false);
    assert.deepEqual(tampered.issues.map((i) => [i.seq, i.kind]), [[1, "altered"]]);
  } finally {
    await log.close();
  }
}

describe("audit migration 2: model_call in a rebuilt audit_records", () => {
  for (const driver of ["embedded", "client"] as const) {
    it(`keeps the chain of v1 records intact on a file (${driver} driver), across a reopen`, async () => {
      const dir = await tempDir();
      const clock = new ManualClock();
      try {
        const first = await openStore({ url: dir.url(), driver });
        await writeV1(first, clock);
        const before = await rowsOf(first);
        await first.close();
        const second = await openStore({ url: dir.url(), driver });
        try {
          await checkMigrated(second, before, clock);
        } finally {
          await second.close();
        }
      } finally {
        await dir.remove();
      }
    });

    it(`migrates :memory: in place (${driver} driver)`, async () => {
      const store = await openStore({ url: ":memory:", driver });
      const clock = new ManualClock();
      try {
        await writeV1(store, clock);
        await checkMigrated(store, await rowsOf(store), clock);
      } finally {
        await store.close();
      }
    });
  }

  it("migrates an empty log, and a second open applies nothing again", async () => {
    const { store, cleanup } = await openTempStore();
    try {
      const first = await applyMigrations(store, auditMigrations);
      assert.deepEqual(first.applied, ["audit#1", "audit#2", "audit#3", "audit#4", "audit#5"]);
      const again = await applyMigrations(store, auditMigrations);
      assert.deepEqual(again.applied, []);
      assert.equal(again.alreadyApplied, 5);
    } finally {
      await cleanup();
    }
  });
});

describe("model_call records", () => {
  it("hold the call's shape: subject, proxy llm, the provider, counts, usage and attempts", async () => {
    const t = await openTempAuditLog();
    try {
      const record = await t.log.appendModelCall(modelCall({ parentRunId: "run-0" }));
      assert.equal(record.kind, "model_call");
      assert.equal(record.status, "ok");
      assert.equal(record.decision, "allow");
      assert.equal(record.intentSeq, null);
      assert.deepEqual([record.traceId, record.taskId, record.runId, record.stepId, record.parentRunId, record.agent], ["trace-1", "task-1", "run-1", "step_1", "run-0", "mail"]);
      assert.deepEqual(record.hostCall, { proxy: "llm", function: "anthropic" });
      assert.deepEqual([record.requestedCapabilities, record.grantedCapabilities], [[], []]);
      assert.equal(record.startAt, 1_700_000_000_000 - 250);
      assert.equal(record.endAt, 1_700_000_000_000);
      assert.equal(record.error, null);
      assert.deepEqual(JSON.parse(record.args ?? "null"), {
        model: "claude-test",
        base_url: "api.anthropic.com",
        messages: 3,
        tools: ["files.read-notes", "mail.send"],
        max_tokens: 1024,
        input_tokens: 120,
        output_tokens: 40,
        stop_reason: "tool_use",
        attempts: 1,
      });
      assert.deepEqual(record.modelCall, {
        model: "claude-test",
        baseUrl: "api.anthropic.com",
        messages: 3,
        tools: ["files.read-notes", "mail.send"],
        maxTokens: 1024,
        inputTokens: 120,
        outputTokens: 40,
        stopReason: "tool_use",
        attempts: 1,
      });
      const [read] = (await t.log.query({ kind: "model_call" })).records;
      assert.deepEqual(read, record);
      assert.equal((await t.log.query({ kind: "host_call" })).records.length, 0);
      assert.equal((await t.log.verify()).ok, true);
    } finally {
      await t.cleanup();
    }
  });

  it("record a failed call as error with its code, and no usage", async () => {
    const t = await openTempAuditLog();
    try {
      const record = await t.log.appendModelCall(
        modelCall({ status: "error", inputTokens: null, outputTokens: null, stopReason: null, attempts: 4, error: { code: "unavailable", message: "openai gpt: 500 (after 4 attempts)" } }),
      );
      assert.equal(record.status, "error");
      assert.deepEqual(record.error, { code: "unavailable", message: "openai gpt: 500 (after 4 attempts)" });
      assert.equal(record.modelCall?.attempts, 4);
      assert.equal(record.modelCall?.inputTokens, null);
      assert.deepEqual((await t.log.query({ kind: "model_call", status: "error" })).records.map((r) => r.seq), [record.seq]);
    } finally {
      await t.cleanup();
    }
  });

  // Adversarial: whatever a base URL carries besides its host stays out of the table.
  const urls: [string, string | null][] = [
    ["https://user:sk-live-PASSWORD@gateway.example.com:8443/openai/deployments/x?api-key=sk-live-QUERY#frag", "gateway.example.com:8443"],
    ["http://127.0.0.1:11434/v1?key=sk-live-QUERY", "127.0.0.1:11434"],
    ["https://api.openai.com/v1", "api.openai.com"],
    ["", null],
  ];
  for (const [url, host] of urls) {
    it(`store only the host of base URL ${JSON.stringify(url)}`, async () => {
      const t = await openTempAuditLog();
      try {
        const record = await t.log.appendModelCall(modelCall({ baseUrl: url }));
        assert.equal(record.modelCall?.baseUrl, host);
        const stored = await allStoredText(t.store);
        for (const leak of ["sk-live", "PASSWORD", "deployments", "frag"]) assert.ok(!stored.includes(leak), `${leak} reached the table`);
      } finally {
        await t.cleanup();
      }
    });
  }

  it("apply secret redaction to the arguments and the error message", async () => {
    const t = await openTempAuditLog({ redaction: { secrets: ["s3cr3t-value"] } });
    try {
      const record = await t.log.appendModelCall(
        modelCall({ model: "model-s3cr3t-value", tools: ["x.s3cr3t-value"], status: "error", error: { code: "auth", message: "key s3cr3t-value refused" } }),
      );
      assert.ok(!(await allStoredText(t.store)).includes("s3cr3t-value"));
      assert.equal(record.modelCall?.model, "model-[REDACTED]");
      assert.equal(record.error?.message, "key [REDACTED] refused");
    } finally {
      await t.cleanup();
    }
  });

  const invalid: [string, Partial<ModelCallInput>, string][] = [
    ["a missing trace id", { traceId: "" }, "traceId"],
    ["a missing provider", { provider: "" }, "provider"],
    ["a missing model", { model: "" }, "model"],
    ["a bad status", { status: "intent" as "ok" }, "status"],
    ["negative tokens", { inputTokens: -1 }, "inputTokens"],
    ["fractional attempts", { attempts: 1.5 }, "attempts"],
    ["a relative base URL", { baseUrl: "/v1" }, "baseUrl"],
    ["tools that are not names", { tools: [1 as unknown as string] }, "tools"],
  ];
  for (const [name, overrides, field] of invalid) {
    it(`refuse ${name}, naming the field`, async () => {
      const t = await openTempAuditLog();
      try {
        await assert.rejects(t.log.appendModelCall(modelCall(overrides)), (error: unknown) => error instanceof InvalidInputError && error.field === field);
        // Control: the valid call is accepted.
        await t.log.appendModelCall(modelCall());
      } finally {
        await t.cleanup();
      }
    });
  }

  it("refuse model_call as an intent kind: a model call is one record, after it ended", async () => {
    const t = await openTempAuditLog();
    try {
      await assert.rejects(t.log.appendIntent(hostIntent({ kind: "model_call" })), (error: unknown) => error instanceof InvalidInputError && error.field === "kind");
    } finally {
      await t.cleanup();
    }
  });

  it("a query with an unknown kind is refused, naming kind", async () => {
    const t = await openTempAuditLog();
    try {
      await assert.rejects(t.log.query({ kind: "llm_call" as "model_call" }), (error: unknown) => error instanceof InvalidInputError && error.field === "kind");
    } finally {
      await t.cleanup();
    }
  });
});
