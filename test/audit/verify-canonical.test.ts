/**
 * `verify()` lets the database write each record's canonical text on a STRICT table
 * (runtime/audit/verify-read.ts). These tables check that text is the writer's text for values
 * chosen to differ between JSON writers, that a change to any such record is still named, and
 * that a table which is not STRICT, or records too large for one page, are still verified whole.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chainHash } from "../../runtime/audit/chain.js";
import { ALL_COLUMNS } from "../../runtime/audit/schema.js";
import { FAST_COLUMNS, strictTable } from "../../runtime/audit/verify-read.js";
import { MAX_STATEMENT_BYTES, type Store } from "../../runtime/store/index.js";
import { dropAppendOnlyGuards, hostIntent, openTempAuditLog } from "./fixtures.js";

const controls = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join("");
const awkward: [string, string][] = [
  ["every C0 control", controls],
  ["quote, backslash, slash", '"\\/\'`'],
  ["DEL and C1 controls", "\u007f\u0080\u009f"],
  ["line and paragraph separators", "a\u2028b\u2029c"],
  ["byte order mark, replacement, noncharacter", "\ufeff\ufffd\uffff"],
  ["astral characters", "😀 𝄞 \u{10ffff}"],
  ["accents and CJK", "é è ß 漢字 한국어"],
  ["empty", ""],
  ["digits only", "12345"],
];

/** Whether the database's text of record `seq` is the text its writer hashed. */
async function fastTextHashes(store: Store, seq: number): Promise<boolean> {
  const row = (await store.execute({ sql: `SELECT ${FAST_COLUMNS} FROM audit_records WHERE seq = ?`, args: [seq] })).rows[0]!;
  return chainHash(seq, String(row.prev_hash), String(row.body_text)) === row.hash;
}

describe("verify: the canonical text the database writes", () => {
  for (const [label, value] of awkward) {
    it(`is the writer's text for ${label}, and a change to that record is named`, async () => {
      const t = await openTempAuditLog();
      try {
        const intent = await t.log.appendIntent(hostIntent({ agent: `agent ${value}`, tool: value || "tool", args: { text: value, [value || "k"]: 1 } }));
        await t.log.appendOutcome(intent, { status: "error", error: { code: "io", message: `failed: ${value}` } });
        assert.deepEqual([await fastTextHashes(t.store, 1), await fastTextHashes(t.store, 2)], [true, true]);
        const clean = await t.log.verify();
        assert.deepEqual([clean.ok, clean.records, clean.issues], [true, 2, []], "untampered (control)");
        await dropAppendOnlyGuards(t.store);
        await t.store.execute({ sql: "UPDATE audit_records SET agent = ? WHERE seq = 1", args: [`agent ${value}x`] });
        const tampered = await t.log.verify();
        assert.deepEqual(tampered.issues.map((i) => [i.seq, i.kind]), [[1, "altered"]]);
      } finally {
        await t.cleanup();
      }
    });
  }
});

describe("verify: tables and records off the fast path", () => {
  /** The chain moved into a table with the same columns and no STRICT: any value type fits. */
  async function unstrict(store: Store): Promise<void> {
    await dropAppendOnlyGuards(store);
    await store.execute("ALTER TABLE audit_records RENAME TO audit_records_strict");
    await store.execute(`CREATE TABLE audit_records (${ALL_COLUMNS.map((c) => (c === "seq" ? "seq INTEGER PRIMARY KEY" : c)).join(", ")})`);
    await store.execute("INSERT INTO audit_records SELECT * FROM audit_records_strict");
  }

  /** The chain moved into a STRICT table whose `agent` column is ANY: it holds a BLOB too. */
  async function strictWithAny(store: Store): Promise<void> {
    await dropAppendOnlyGuards(store);
    await store.execute("ALTER TABLE audit_records RENAME TO audit_records_old");
    const columns = ALL_COLUMNS.map((c) => (c === "seq" ? "seq INTEGER PRIMARY KEY" : c === "agent" ? "agent ANY" : `${c} ${["intent_seq", "args_bytes", "args_truncated", "approval_required", "start_at", "end_at", "result_size"].includes(c) ? "INTEGER" : "TEXT"}`));
    await store.execute(`CREATE TABLE audit_records (${columns.join(", ")}) STRICT`);
    await store.execute("INSERT INTO audit_records SELECT * FROM audit_records_old");
  }

  for (const [label, sql, issues] of [
    ["untouched (control)", null, []],
    ["its text replaced by a BLOB of the same bytes", "UPDATE audit_records SET agent = CAST(agent AS BLOB) WHERE seq = 1", [[1, "altered"]]],
  ] as [string, string | null, [number, string][]][]) {
    it(`verifies a STRICT table with an ANY column, ${label}`, async () => {
      const t = await openTempAuditLog();
      try {
        const intent = await t.log.appendIntent(hostIntent());
        await t.log.appendOutcome(intent, { status: "ok" });
        await strictWithAny(t.store);
        assert.equal(await strictTable(t.store), false, "an ANY column is off the fast path");
        if (sql !== null) await t.store.execute(sql);
        const report = await t.log.verify();
        assert.deepEqual([report.records, report.issues.map((i) => [i.seq, i.kind])], [2, issues]);
      } finally {
        await t.cleanup();
      }
    });
  }

  const cases: [string, string | null, [number, string][]][] = [
    ["the copy, untouched (control)", null, []],
    ["a TEXT value replaced by a BLOB of its bytes", "UPDATE audit_records SET agent = CAST(agent AS BLOB) WHERE seq = 2", [[2, "altered"]]],
    ["an INTEGER replaced by a TEXT of its digits", "UPDATE audit_records SET start_at = CAST(start_at AS TEXT) WHERE seq = 1", [[1, "altered"]]],
    ["a TEXT value changed", "UPDATE audit_records SET tool = 'other' WHERE seq = 1", [[1, "altered"]]],
  ];
  for (const [label, sql, issues] of cases) {
    it(`verifies a table that is not STRICT: ${label}`, async () => {
      const t = await openTempAuditLog();
      try {
        const intent = await t.log.appendIntent(hostIntent());
        await t.log.appendOutcome(intent, { status: "ok" });
        assert.equal(await strictTable(t.store), true, "the table as created (control)");
        await unstrict(t.store);
        assert.equal(await strictTable(t.store), false);
        if (sql !== null) await t.store.execute(sql);
        const report = await t.log.verify();
        assert.equal(report.records, 2);
        assert.deepEqual(report.issues.map((i) => [i.seq, i.kind]), issues);
      } finally {
        await t.cleanup();
      }
    });
  }

  it("verifies records whose pages are larger than one statement may return, and names a change among them", async () => {
    const t = await openTempAuditLog();
    try {
      const big = "x".repeat(15_000);
      const count = Math.ceil((2 * MAX_STATEMENT_BYTES) / big.length);
      for (let i = 0; i < count; i++) await t.log.appendIntent(hostIntent({ args: { i, big } }));
      const clean = await t.log.verify();
      assert.deepEqual([clean.ok, clean.records, clean.inFlight.length], [true, count, count], "untampered (control)");
      await dropAppendOnlyGuards(t.store);
      await t.store.execute({ sql: "UPDATE audit_records SET args = replace(args, 'xxxx', 'xxxy') WHERE seq = ?", args: [count - 3] });
      const tampered = await t.log.verify();
      assert.deepEqual(tampered.issues.map((i) => [i.seq, i.kind]), [[count - 3, "altered"]]);
    } finally {
      await t.cleanup();
    }
  });
});
