import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type * as v from "valibot";
import type { AuditRecordSchema } from "../../runtime/api/schemas/audit.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { errorOf } from "./fixtures.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let mine = "";
let theirs = "";

before(async () => {
  f = await apiFixture();
  const work = join(f.dataDir, "work");
  await mkdir(work);
  await writeFile(join(work, "notes.txt"), "notes\n");
  const agent = await defineTestAgent(f.runtime, "reader", { mounts: [{ guest: "/w", host: work }] });
  const a = await f.runtime.startRun({ agent, ownerToken: f.tokenId.client });
  for (let i = 0; i < 6; i++) await a.callTool("files.read_file", { path: "/w/notes.txt" });
  await a.callTool("files.read_file", { path: "/etc/passwd" });
  const b = await f.runtime.startRun({ agent, ownerToken: f.tokenId.other });
  await b.callTool("files.read_file", { path: "/w/notes.txt" });
  mine = a.id;
  theirs = b.id;
  await Promise.all([a.end(), b.end()]);
});
after(() => f.close());

/** Every page of a query, following next_cursor. */
/** A record as the API answers it. */
type AuditRecord = v.InferOutput<typeof AuditRecordSchema>;

async function allPages(query: string, token = f.token.admin): Promise<{ records: AuditRecord[]; pages: number }> {
  const records: AuditRecord[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const answer = await call(f, "GET", `/v1/audit?${query}${cursor === null ? "" : `&cursor=${cursor}`}`, { token });
    assert.equal(answer.status, 200, answer.text);
    records.push(...answer.body.records);
    cursor = answer.body.next_cursor;
    pages++;
    assert.ok(pages < 100, "paging ends");
  } while (cursor !== null);
  return { records, pages };
}

test("paging with a cursor over more records than a page holds, newest first or in chain order", async () => {
  const { records: all } = await f.runtime.audit.query({ runId: mine, limit: 1000 });
  assert.ok(all.length > 12, `${all.length} records`);
  const desc = await allPages(`run_id=${mine}&limit=5`);
  assert.equal(desc.pages, Math.ceil(all.length / 5));
  assert.deepEqual(desc.records.map((r) => r.seq), all.map((r) => r.seq).reverse());
  const asc = await allPages(`run_id=${mine}&limit=7&order=asc`);
  assert.deepEqual(asc.records.map((r) => r.seq), all.map((r) => r.seq));
  const max = await call(f, "GET", `/v1/audit?limit=500`);
  assert.equal(max.status, 200);
});

test("filters: status, kind, tool, trace, time", async () => {
  const denied = await allPages(`run_id=${mine}&status=denied`);
  assert.equal(denied.records.length, 1);
  assert.equal(denied.records[0]?.denial?.reason, "outside-mount");
  const outcomes = await allPages(`run_id=${mine}&status=ok,error&kind=host_call`);
  assert.ok(outcomes.records.length > 0 && outcomes.records.every((r) => (r.status === "ok" || r.status === "error") && r.kind === "host_call"));
  const tool = await allPages(`tool=files.read_file&kind=tool_call&limit=500`);
  assert.deepEqual([...new Set(tool.records.map((r) => r.run_id))].sort(), [mine, theirs].sort());
  const trace = (await f.runtime.records.get(theirs))!.traceId;
  const byTrace = await allPages(`trace_id=${trace}`);
  assert.ok(byTrace.records.every((r) => r.run_id === theirs));
  const future = new Date(Date.now() + 60_000).toISOString();
  assert.deepEqual((await allPages(`since=${encodeURIComponent(future)}`)).records, []);
  assert.ok((await allPages(`until=${encodeURIComponent(future)}&run_id=${theirs}`)).records.length > 0);
  assert.ok((await allPages(`since=0&run_id=${theirs}`)).records.length > 0, "epoch milliseconds");
});

test("kind=model_call: a run's model calls, with their shape parsed; a client may read its own", async () => {
  const run = (await f.runtime.records.get(mine))!;
  const appended = await f.runtime.audit.appendModelCall({
    traceId: run.traceId,
    runId: mine,
    agent: "reader",
    stepId: "step_1",
    provider: "anthropic",
    model: "claude-api",
    baseUrl: "https://api.anthropic.com",
    messages: 1,
    tools: ["files.read_file"],
    maxTokens: 256,
    inputTokens: 90,
    outputTokens: 12,
    stopReason: "end_turn",
    attempts: 2,
    startAt: Date.now() - 10,
    status: "ok",
  });
  for (const token of [f.token.admin, f.token.client]) {
    const { records } = await allPages(`run_id=${mine}&kind=model_call`, token);
    assert.deepEqual(records.map((r) => r.seq), [appended.seq]);
    assert.equal(records[0]!.kind, "model_call");
    assert.deepEqual(records[0]!.host_call, { proxy: "llm", function: "anthropic" });
    assert.deepEqual(records[0]!.model_call, {
      model: "claude-api",
      base_url: "api.anthropic.com",
      messages: 1,
      tools: ["files.read_file"],
      max_tokens: 256,
      input_tokens: 90,
      output_tokens: 12,
      stop_reason: "end_turn",
      attempts: 2,
    });
  }
  // Control: the other kinds do not include it.
  const tools = await allPages(`run_id=${mine}&kind=tool_call`);
  assert.ok(tools.records.length > 0 && tools.records.every((r) => r.kind === "tool_call"));
});

test("a client reads the audit of its own runs only; an approver none", async () => {
  const own = await allPages(`run_id=${mine}`, f.token.client);
  assert.ok(own.records.length > 0 && own.records.every((r) => r.run_id === mine));
  const other = await call(f, "GET", `/v1/audit?run_id=${theirs}`, { token: f.token.client });
  assert.equal(other.status, 404, "another client's run does not exist for it");
  assert.equal((await call(f, "GET", `/v1/audit?run_id=${mine}`, { token: f.token.other })).status, 404);
  assert.equal((await call(f, "GET", "/v1/audit?run_id=run_nope", { token: f.token.client })).status, 404);
  const unscoped = await call(f, "GET", "/v1/audit", { token: f.token.client });
  assert.equal(unscoped.status, 400);
  assert.equal(unscoped.body.error.field, "query.run_id");
  // A trace filter cannot widen what the run filter allows.
  const trace = (await f.runtime.records.get(theirs))!.traceId;
  const mixed = await call(f, "GET", `/v1/audit?run_id=${mine}&trace_id=${trace}`, { token: f.token.client });
  assert.deepEqual(mixed.body.records, []);
  assert.equal((await call(f, "GET", `/v1/audit?run_id=${mine}`, { token: f.token.approver })).status, 403);
  assert.equal((await call(f, "GET", "/v1/audit/verify", { token: f.token.client })).status, 403);
  assert.equal((await call(f, "GET", "/v1/audit/verify", { token: f.token.approver })).status, 403);
});

test("GET /v1/audit/verify reports the chain; a head recorded earlier that does not match fails it", async () => {
  const report = await call(f, "GET", "/v1/audit/verify");
  assert.equal(report.status, 200);
  assert.equal(report.body.ok, true);
  assert.ok(report.body.records > 0);
  const head = report.body.head as { seq: number; hash: string };
  assert.equal((await call(f, "GET", `/v1/audit/verify?expect_head=${head.seq}:${head.hash}`)).body.ok, true);
  const wrong = await call(f, "GET", `/v1/audit/verify?expect_head=${head.seq}:${"0".repeat(64)}`);
  assert.equal(wrong.body.ok, false);
  assert.equal(wrong.body.issues[0].kind, "head_mismatch");
});

describe("bad queries: 400 naming the parameter", () => {
  const cases: Array<[query: string, field: string]> = [
    ["limit=0", "query.limit"],
    ["limit=501", "query.limit"],
    ["limit=ten", "query.limit"],
    ["limit=-1", "query.limit"],
    ["cursor=bm90LWEtY3Vyc29y", "query.cursor"],
    ["cursor=a%20b", "query.cursor"],
    ["status=bogus", "query.status"],
    ["status=ok,,denied", "query.status"],
    ["kind=effect", "query.kind"],
    ["kind=model_calls", "query.kind"],
    ["kind=MODEL_CALL", "query.kind"],
    ["since=2026-02-30", "query.since"],
    ["since=2026-01-31T09:00:00", "query.since"],
    ["since=yesterday", "query.since"],
    ["since=2026-02-01&until=2026-01-01", "query.since"],
    ["run_id=..", "query.run_id"],
    ["run_id=run_a&run_id=run_b", "query.run_id"],
    ["tool=files.", "query.tool"],
    ["tool=files.read_file.x", "query.tool"],
    ["order=sideways", "query.order"],
    ["page=2", "query.page"],
    ["expect_head=1:abc", "query.expect_head"],
  ];
  for (const [query, field] of cases) {
    test(`${query} → 400 ${field}`, async () => {
      const before = (await f.runtime.audit.verify()).records;
      const path = query.startsWith("expect_head") ? `/v1/audit/verify?${query}` : `/v1/audit?${query}`;
      const answer = await call(f, "GET", path);
      assert.equal(answer.status, 400, answer.text);
      const error = errorOf(answer.text);
      assert.equal(error.code, "invalid_input");
      assert.equal(error.field, field, answer.text);
      assert.equal((await f.runtime.audit.verify()).records, before);
    });
  }
});
