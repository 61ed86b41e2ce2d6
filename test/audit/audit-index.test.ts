/**
 * The index table (audit#5): the audit API's filtered queries read `audit_index` for what is
 * indexed and scan the chain's tail after it, so they return the same records whether none, part
 * or all of the log is indexed, across a restart between fills, embedded and on sqld.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { openAuditLog } from "../../runtime/audit/index.js";
import type { AuditQuery, AuditRecord, LibsqlAuditLog } from "../../runtime/audit/index.js";
import { buildQuery } from "../../runtime/audit/query.js";
import { openStore } from "../../runtime/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";
import { tempDir } from "../store/temp-store.js";
import { hostDenial, hostIntent, ManualClock, toolIntent } from "./fixtures.js";

const START = 1_700_000_000_000;

/** `n` ToolCalls' worth of records over five runs, three agents, four tools, seven traces; some denied, some failed. */
async function appendMany(log: LibsqlAuditLog, clock: ManualClock, n: number, from = 0): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let i = from; i < from + n; i++) {
    clock.set(START + i * 10);
    const who = { runId: `run-${i % 5}`, agent: `agent-${i % 3}`, tool: `tool-${i % 4}`, traceId: `trace-${i % 7}` };
    if (i % 9 === 0) {
      writes.push(log.appendDenial(hostDenial(who)));
      continue;
    }
    const intent = log.deferIntent(i % 2 === 0 ? toolIntent({ ...who, toolCall: { id: `call-${i}`, name: "files.read-notes" } }) : hostIntent(who));
    writes.push(log.appendOutcome(intent, i % 11 === 0 ? { status: "error", error: { code: "boom", message: "it failed" } } : { status: "ok", resultSize: i }));
  }
  await Promise.all(writes);
  await log.flush();
}

const QUERIES: readonly [string, AuditQuery, (r: AuditRecord) => boolean][] = [
  ["a run", { runId: "run-1" }, (r) => r.runId === "run-1"],
  ["an agent and a tool", { agent: "agent-2", tool: "tool-1" }, (r) => r.agent === "agent-2" && r.tool === "tool-1"],
  ["a trace, newest first", { traceId: "trace-3", order: "desc" }, (r) => r.traceId === "trace-3"],
  ["denied", { status: "denied" }, (r) => r.status === "denied"],
  ["error or denied, newest first", { status: ["error", "denied"], order: "desc" }, (r) => r.status === "error" || r.status === "denied"],
  ["a time range", { since: START + 2_000, until: START + 5_000 }, (r) => r.startAt >= START + 2_000 && r.startAt < START + 5_000],
  ["a kind and a run", { kind: "tool_call", runId: "run-2" }, (r) => r.kind === "tool_call" && r.runId === "run-2"],
  ["intents of a run in pages of 7", { runId: "run-4", status: "intent", limit: 7 }, (r) => r.runId === "run-4" && r.status === "intent"],
  ["nothing", { agent: "nobody" }, () => false],
];

async function allPages(log: LibsqlAuditLog, query: AuditQuery): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await log.query({ ...query, ...(cursor === undefined ? {} : { cursor }) });
    out.push(...page.records);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

/** Every filtered query returns, page by page, exactly the records a filter of the whole chain gives. */
async function checkQueries(log: LibsqlAuditLog, state: string): Promise<void> {
  const chain = await allPages(log, { limit: 1000 });
  assert.ok(chain.length > 0);
  for (const [name, query, keep] of QUERIES) {
    const expected = chain.filter(keep);
    if (query.order === "desc") expected.reverse();
    const got = await allPages(log, query);
    assert.deepEqual(got.map((r) => r.seq), expected.map((r) => r.seq), `${name} (${state})`);
    assert.deepEqual(got, expected, `${name} (${state}): the records themselves`);
  }
}

async function indexed(store: Store): Promise<number> {
  return Number((await store.execute("SELECT count(*) AS n FROM audit_index")).rows[0]!.n);
}

/** None, part, then all of the log in the index table: the same answers each time. */
async function checkEveryState(store: Store, log: LibsqlAuditLog, records: number): Promise<void> {
  await log.index();
  assert.equal(await indexed(store), records);
  await store.execute("DELETE FROM audit_index");
  assert.equal(await indexed(store), 0);
  await checkQueries(log, "nothing indexed");
  await log.index();
  await store.execute("DELETE FROM audit_index WHERE seq > 450");
  assert.equal(await indexed(store), 450);
  await checkQueries(log, "450 indexed");
  await log.index();
  assert.equal(await indexed(store), records);
  await checkQueries(log, "all indexed");
}

describe("audit index table", () => {
  it("answers filtered queries the same with none, part or all of the log indexed (file)", async () => {
    const dir = await tempDir();
    const store = await openStore({ url: dir.url() });
    const clock = new ManualClock();
    const log = await openAuditLog(store, { clock, indexIdleMs: Infinity });
    try {
      await appendMany(log, clock, 700);
      const records = Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n);
      await checkEveryState(store, log, records);
    } finally {
      await log.close();
      await store.close();
      await dir.remove();
    }
  });

  it("answers the same across a restart with the index part-filled, and catches up after it", async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const first = await openStore({ url: dir.url() });
    const before = await openAuditLog(first, { clock, indexIdleMs: Infinity });
    await appendMany(before, clock, 400);
    await before.index();
    // A crash between fills: the last records were never indexed, and the log never closed.
    await first.execute("DELETE FROM audit_index WHERE seq > 300");
    await first.close();
    const store = await openStore({ url: dir.url() });
    const log = await openAuditLog(store, { clock, indexIdleMs: Infinity });
    try {
      assert.equal(await indexed(store), 300);
      await checkQueries(log, "after the restart");
      await appendMany(log, clock, 100, 400);
      await checkQueries(log, "new records after the restart");
      await log.index();
      const records = Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n);
      assert.equal(await indexed(store), records);
      await checkQueries(log, "caught up");
    } finally {
      await log.close();
      await store.close();
      await dir.remove();
    }
  });

  it("fills itself: once a batch's worth is written, and the rest when the log is quiet or closes", async () => {
    const dir = await tempDir();
    const store = await openStore({ url: dir.url() });
    const clock = new ManualClock();
    const log = await openAuditLog(store, { clock, indexIdleMs: 20 });
    try {
      await appendMany(log, clock, 200);
      const records = Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n);
      for (let i = 0; i < 500 && (await indexed(store)) < records; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(await indexed(store), records, "indexed once quiet");
      const quiet = await openAuditLog(store, { clock, indexIdleMs: Infinity });
      await appendMany(quiet, clock, 700, 200);
      const more = Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n);
      for (let i = 0; i < 500 && (await indexed(store)) < 512 + records; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok((await indexed(store)) >= 512 + records, "a batch's worth indexed without waiting for quiet");
      await quiet.close();
      assert.equal(await indexed(store), more, "the rest indexed at close");
    } finally {
      await log.close();
      await store.close();
      await dir.remove();
    }
  });

  it("reads filtered queries through the index table's indexes and the tail by primary key; an unfiltered one scans in seq order (control)", async () => {
    const store = await openStore({ url: ":memory:" });
    const log = await openAuditLog(store);
    try {
      const plan = async (query: AuditQuery): Promise<string> => {
        const statement = buildQuery(query).page(101);
        const rows = (await store.execute({ sql: `EXPLAIN QUERY PLAN ${statement.sql}`, args: statement.args ?? [] })).rows;
        return rows.map((r) => String(r.detail)).join("\n");
      };
      for (const [query, index] of [
        [{ runId: "r" }, "audit_index_run"],
        [{ traceId: "t" }, "audit_index_trace"],
        [{ agent: "a" }, "audit_index_agent"],
        [{ tool: "t" }, "audit_index_tool"],
        [{ status: "denied" }, "audit_index_denied"],
        [{ status: "error" }, "audit_index_error"],
      ] as const) {
        const detail = await plan(query);
        assert.match(detail, new RegExp(`audit_index USING (COVERING )?INDEX ${index}`), `${JSON.stringify(query)}:\n${detail}`);
        assert.doesNotMatch(detail, /SCAN audit_records/, `${JSON.stringify(query)}:\n${detail}`);
        assert.match(detail, /SEARCH audit_records USING INTEGER PRIMARY KEY \(rowid>\?\)/, `${JSON.stringify(query)}: the tail:\n${detail}`);
      }
      // A time range the planner may read by start_at or in seq order (a LIMIT ends it early): the index table either way.
      const range = await plan({ since: 1, until: 2 });
      assert.match(range, /audit_index/);
      assert.doesNotMatch(range, /SCAN audit_records/, range);
      assert.match(await plan({}), /SCAN audit_records/);
    } finally {
      await log.close();
      await store.close();
    }
  });
});

const skip = needsSqld();
let server: Promise<SqldServer> | undefined;
after(async () => {
  if (server !== undefined) await (await server).stop();
});

describe("audit index table on sqld", skip, () => {
  it("answers filtered queries the same with none, part or all of the log indexed", async () => {
    const s = await (server ??= startSqld({ auth: true }));
    const store = await openStore({ url: s.url, authToken: s.authToken! });
    const clock = new ManualClock();
    const log = await openAuditLog(store, { clock, indexIdleMs: Infinity });
    try {
      await appendMany(log, clock, 600);
      const records = Number((await store.execute("SELECT count(*) AS n FROM audit_records")).rows[0]!.n);
      await checkEveryState(store, log, records);
    } finally {
      await log.close();
      await store.close();
    }
  });
});
