/**
 * `GET /v1/approvals` pages over the whole store with its cursor — past the newest 1000 a single
 * store read may return — newest first, each approval once, the filters kept on every page.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
const TOTAL = 1005;
const created: string[] = [];

before(async () => {
  f = await apiFixture();
  for (let i = 0; i < TOTAL; i++) {
    const approval = await f.runtime.approvals.request({
      kind: "tool_call",
      runId: `run_page${i % 3}`,
      traceId: "0".repeat(31) + "1",
      agent: "pager",
      stepId: "step_1",
      toolCallId: `call_${i}`,
      tool: "files.write_file",
      input: { path: `/notes/${i}.txt` },
      risk: "guarded",
      reason: "fs.write is Guarded",
    });
    created.push(approval.id);
  }
});
after(() => f.close());

async function everyPage(query: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await call(f, "GET", `/v1/approvals?${query}${cursor === null ? "" : `&cursor=${cursor}`}`, { token: f.token.approver });
    assert.equal(page.status, 200, page.text);
    ids.push(...page.body.approvals.map((a: { id: string }) => a.id));
    cursor = page.body.next_cursor;
    pages++;
    assert.ok(pages <= TOTAL + 1, "the cursor moves on");
  } while (cursor !== null);
  return { ids, pages };
}

test("pages of 1000 reach every approval of 1005: two pages, each approval once", async () => {
  const { ids, pages } = await everyPage("status=pending&limit=1000");
  assert.equal(pages, 2);
  assert.equal(ids.length, TOTAL);
  assert.deepEqual([...ids].sort(), [...created].sort(), "each approval exactly once");
});

test("small pages walk the whole store newest first, each approval once, and the filter holds on every page", async () => {
  const all = await everyPage("status=all&limit=97");
  assert.equal(all.ids.length, TOTAL);
  assert.equal(new Set(all.ids).size, TOTAL);
  const views = await Promise.all(all.ids.slice(0, 5).map((id) => f.runtime.approvals.get(id)));
  for (let i = 1; i < views.length; i++) assert.ok(views[i - 1]!.createdAt >= views[i]!.createdAt, "newest first");
  const one = await everyPage("status=pending&run_id=run_page1&limit=50");
  assert.equal(one.ids.length, created.filter((_, i) => i % 3 === 1).length);
  assert.deepEqual([...one.ids].sort(), created.filter((_, i) => i % 3 === 1).sort());
  const none = await everyPage("status=approved");
  assert.deepEqual(none, { ids: [], pages: 1 }, "control: no approved ones, one empty page");
});

test("a cursor the list did not give is refused naming query.cursor; control: the one it gave is accepted", async () => {
  const first = await call(f, "GET", "/v1/approvals?limit=2", { token: f.token.approver });
  assert.equal(first.status, 200);
  assert.equal((await call(f, "GET", `/v1/approvals?limit=2&cursor=${first.body.next_cursor}`, { token: f.token.approver })).status, 200);
  for (const cursor of ["bm90LWEta2V5", "AAAA", Buffer.from("12:apr_x").toString("base64url")]) {
    const bad = await call(f, "GET", `/v1/approvals?limit=2&cursor=${cursor}`, { token: f.token.approver });
    assert.equal(bad.status, 400, `${cursor}: ${bad.text}`);
    assert.equal(bad.body.error.field, "query.cursor");
  }
});
