import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AuditError } from "../../runtime/audit/index.js";
import type { AuditQuery, IntentInput, LibsqlAuditLog } from "../../runtime/audit/index.js";
import { GENESIS_HASH } from "../../runtime/audit/chain.js";
import { InvalidInputError } from "../../runtime/errors.js";
import { hostDenial, hostIntent, openTempAuditLog, toolIntent } from "./fixtures.js";
import type { TempAuditLog } from "./fixtures.js";

async function withLog(body: (t: TempAuditLog) => Promise<void>): Promise<void> {
  const t = await openTempAuditLog();
  try {
    await body(t);
  } finally {
    await t.cleanup();
  }
}

describe("append", () => {
  it("writes an intent, then its outcome linked by seq, chained from the genesis hash", () =>
    withLog(async ({ log, clock }) => {
      const intent = await log.appendIntent(hostIntent({ args: { path: "/work/notes/a.md", mode: "r" } }));
      assert.equal(intent.seq, 1);
      assert.equal(intent.prevHash, GENESIS_HASH);
      assert.match(intent.hash, /^[0-9a-f]{64}$/);
      assert.equal(intent.status, "intent");
      assert.equal(intent.decision, "allow");
      assert.equal(intent.args, `{"mode":"r","path":"/work/notes/a.md"}`);
      assert.equal(intent.startAt, clock.now());
      assert.deepEqual(intent.hostCall, { proxy: "fs", function: "read-file" });
      assert.deepEqual(intent.grantedCapabilities, [{ capability: "fs.read", resource: "/work/notes/**" }]);
      clock.advance(5);
      const outcome = await log.appendOutcome(intent, { status: "ok", resultSize: 120 });
      assert.equal(outcome.seq, 2);
      assert.equal(outcome.prevHash, intent.hash);
      assert.equal(outcome.intentSeq, 1);
      assert.equal(outcome.status, "ok");
      assert.equal(outcome.startAt, intent.startAt);
      assert.equal(outcome.endAt, intent.startAt + 5);
      assert.equal(outcome.resultSize, 120);
      assert.equal(outcome.runId, intent.runId);
      const stored = await log.query();
      assert.deepEqual(stored.records, [intent, outcome], "what append returned is what query reads back");
    }));

  it("writes a denial as one record with its structured reason", () =>
    withLog(async ({ log }) => {
      const denial = await log.appendDenial(hostDenial());
      assert.equal(denial.status, "denied");
      assert.equal(denial.decision, "deny");
      assert.deepEqual(denial.denial, { capability: "fs.write", reason: "not_granted", message: "fs.write /etc/passwd: not granted to agent mail" });
      assert.equal(denial.startAt, denial.endAt);
      assert.equal((await log.query()).records.length, 1);
    }));

  it("records a tool call with its ToolCall id and name", () =>
    withLog(async ({ log }) => {
      const intent = await log.appendIntent(toolIntent());
      assert.deepEqual(intent.toolCall, { id: "call-1", name: "files.read-notes" });
      assert.equal(intent.hostCall, null);
      const outcome = await log.appendOutcome(intent, { status: "error", error: { code: "plugin_trapped", message: "trap" } });
      assert.deepEqual(outcome.error, { code: "plugin_trapped", message: "trap" });
    }));

  it("refuses a second outcome for one intent; the first (control) is accepted", () =>
    withLog(async ({ log }) => {
      const intent = await log.appendIntent(hostIntent());
      await log.appendOutcome(intent, { status: "ok" });
      await assert.rejects(log.appendOutcome(intent, { status: "ok" }), (e: unknown) => e instanceof AuditError && e.code === "audit_outcome_failed");
      assert.equal((await log.query()).records.length, 2);
    }));

  it("refuses an outcome for a record that is not an intent", () =>
    withLog(async ({ log }) => {
      const denial = await log.appendDenial(hostDenial());
      await assert.rejects(log.appendOutcome(denial, { status: "ok" }), InvalidInputError);
    }));

  const invalid: [string, IntentInput][] = [
    ["an empty traceId", hostIntent({ traceId: "" })],
    ["an empty agent", hostIntent({ agent: "" })],
    ["a host call without hostCall", hostIntent({ hostCall: null })],
    ["a tool call without toolCall", toolIntent({ toolCall: null })],
    ["an unknown kind", { ...hostIntent(), kind: "shell" as "host_call" }],
    ["arguments with NaN", hostIntent({ args: { n: Number.NaN } })],
    ["capabilities that are not an array", hostIntent({ grantedCapabilities: "fs.read" as unknown as [] })],
  ];
  for (const [label, input] of invalid) {
    it(`refuses ${label} and writes nothing`, () =>
      withLog(async ({ log }) => {
        await assert.rejects(log.appendIntent(input), InvalidInputError);
        assert.equal((await log.query()).records.length, 0);
        await log.appendIntent(hostIntent());
        assert.equal((await log.query()).records.length, 1, "a valid intent (control) is written");
      }));
  }
});

/** 12 records: 2 traces, 3 runs, 2 agents, 2 tools, every status, start times 1000 ms apart. */
async function seed(log: LibsqlAuditLog, clock: { set(ms: number): void }): Promise<void> {
  const runs = [
    { traceId: "trace-a", runId: "run-1", agent: "mail", tool: "read-notes" },
    { traceId: "trace-a", runId: "run-2", agent: "mail", tool: "send" },
    { traceId: "trace-b", runId: "run-3", agent: "calendar", tool: "read-notes" },
  ];
  let t = 0;
  for (const run of runs) {
    clock.set(++t * 1000);
    const ok = await log.appendIntent(hostIntent(run));
    await log.appendOutcome(ok, { status: "ok" });
    clock.set(++t * 1000);
    const failed = await log.appendIntent(hostIntent(run));
    await log.appendOutcome(failed, { status: "error", error: { code: "io", message: "disk" } });
  }
  for (const run of runs) {
    clock.set(++t * 1000);
    await log.appendDenial(hostDenial(run));
  }
  clock.set(++t * 1000);
  await log.appendIntent(hostIntent(runs[0]));
}

describe("query", () => {
  const filters: [string, AuditQuery, number[]][] = [
    ["no filter", {}, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]],
    ["trace", { traceId: "trace-b" }, [9, 10, 11, 12, 15]],
    ["run", { runId: "run-2" }, [5, 6, 7, 8, 14]],
    ["agent", { agent: "calendar" }, [9, 10, 11, 12, 15]],
    ["tool", { tool: "send" }, [5, 6, 7, 8, 14]],
    ["status denied", { status: "denied" }, [13, 14, 15]],
    ["status error", { status: "error" }, [4, 8, 12]],
    ["status intent", { status: "intent" }, [1, 3, 5, 7, 9, 11, 16]],
    ["two statuses", { status: ["ok", "denied"] }, [2, 6, 10, 13, 14, 15]],
    ["the outcome of an intent", { intentSeq: 3 }, [4]],
    ["a time range [2000, 4000)", { since: 2000, until: 4000 }, [3, 4, 5, 6]],
    ["run and status together", { runId: "run-1", status: "ok" }, [2]],
    ["a run nobody made (control: empty, not an error)", { runId: "run-9" }, []],
  ];
  for (const [label, query, seqs] of filters) {
    it(`filters by ${label}`, () =>
      withLog(async ({ log, clock }) => {
        await seed(log, clock);
        const page = await log.query(query);
        assert.deepEqual(page.records.map((r) => r.seq), seqs);
        assert.equal(page.nextCursor, null);
      }));
  }

  for (const order of ["asc", "desc"] as const) {
    it(`pages with a cursor, ${order}, until nextCursor is null`, () =>
      withLog(async ({ log, clock }) => {
        await seed(log, clock);
        const seen: number[][] = [];
        let cursor: string | undefined;
        do {
          const page = await log.query({ runId: "run-1", limit: 2, order, ...(cursor === undefined ? {} : { cursor }) });
          seen.push(page.records.map((r) => r.seq));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        const expected = order === "asc" ? [[1, 2], [3, 4], [13, 16]] : [[16, 13], [4, 3], [2, 1]];
        assert.deepEqual(seen, expected);
      }));
  }

  const refused: [string, AuditQuery][] = [
    ["a cursor this log did not issue", { cursor: "not-a-cursor" }],
    ["a cursor from the other order", { cursor: Buffer.from("d:3").toString("base64url") }],
    ["limit 0", { limit: 0 }],
    ["limit 1001", { limit: 1001 }],
    ["an unknown status", { status: "maybe" as "ok" }],
    ["an empty status list", { status: [] }],
    ["a non-finite time", { since: Number.NaN }],
  ];
  for (const [label, query] of refused) {
    it(`refuses ${label}`, () =>
      withLog(async ({ log }) => {
        await assert.rejects(log.query(query), InvalidInputError);
      }));
  }
  it("accepts its own cursor and limit 1000 (control)", () =>
    withLog(async ({ log, clock }) => {
      await seed(log, clock);
      const first = await log.query({ limit: 1 });
      const second = await log.query({ limit: 1000, cursor: first.nextCursor ?? "" });
      assert.equal(second.records[0]?.seq, 2);
    }));
});

describe("flush", () => {
  it("an outcome appended without awaiting it is in the store once flush resolves, and query sees it", () =>
    withLog(async ({ log, store }) => {
      const intent = await log.appendIntent(hostIntent());
      void log.appendOutcome(intent, { status: "ok", resultSize: 7 });
      const direct = async () => Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n);
      await log.flush();
      assert.equal(await direct(), 2);
      void log.appendOutcome(await log.appendIntent(hostIntent()), { status: "error", error: { code: "io", message: "gone" } });
      const page = await log.query({ status: "error" });
      assert.equal(page.records.length, 1);
      assert.equal((await log.verify()).ok, true);
    }));
});

describe("deferred intents", () => {
  it("an intent and its outcome appended before any commit are written in one commit, linked", () =>
    withLog(async ({ log }) => {
      const before = log.stats.batches;
      const intent = log.deferIntent(toolIntent());
      const outcome = await log.appendOutcome(intent, { status: "ok", resultSize: 3 });
      assert.equal(log.stats.batches, before + 1, "one commit for both");
      const written = await intent.ensure();
      assert.equal(written.status, "intent");
      assert.equal(outcome.intentSeq, written.seq);
      assert.equal(outcome.seq, written.seq + 1);
      assert.equal((await log.verify()).ok, true);
    }));

  it("another append's commit takes a deferred intent along; its later outcome still names it", () =>
    withLog(async ({ log }) => {
      const intent = log.deferIntent(toolIntent());
      const other = await log.appendIntent(hostIntent({ runId: "run-other" }));
      const written = await intent.ensure();
      assert.equal(written.seq, other.seq - 1, "written first, with the other run's intent");
      const outcome = await log.appendOutcome(intent, { status: "error", error: { code: "failed", message: "no" } });
      assert.equal(outcome.intentSeq, written.seq);
      assert.equal((await log.verify()).ok, true);
    }));

  it("ensure() writes it at once; awaited alone it is written within a few ms, never left waiting", () =>
    withLog(async ({ log, store }) => {
      const rows = async () => Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n);
      const first = log.deferIntent(toolIntent());
      await first.ensure();
      assert.equal(await rows(), 1);
      const started = Date.now();
      const alone = await log.appendModelCall({ traceId: "t", runId: "r", agent: "a", provider: "openai", model: "m", tools: [], messages: 1, maxTokens: 10, attempts: 1, status: "ok", startAt: Date.now() });
      // Loose for a loaded machine: what it rules out is a record left waiting for another write.
      assert.ok(Date.now() - started < 10_000);
      assert.equal(alone.kind, "model_call");
      assert.equal(await rows(), 2);
    }));

  it("an outcome whose deferred intent could not be written fails too, and is not written", () =>
    withLog(async ({ log, store }) => {
      await store.execute("CREATE TRIGGER refuse_intents BEFORE INSERT ON audit_records WHEN NEW.status = 'intent' BEGIN SELECT RAISE(ABORT, 'refused'); END");
      const intent = log.deferIntent(toolIntent());
      await assert.rejects(intent.ensure(), /refused/);
      await assert.rejects(log.appendOutcome(intent, { status: "ok" }), /intent of this outcome was not written/);
      await store.execute("DROP TRIGGER refuse_intents");
      assert.equal(Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n), 0);
      // Control: the log goes on.
      const next = log.deferIntent(toolIntent());
      assert.equal((await log.appendOutcome(next, { status: "ok" })).status, "ok");
    }));
});
