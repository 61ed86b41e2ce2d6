/**
 * Run events are stored in the API's names (snake_case) and served in them; a tool's input keeps
 * its own names; a row written before (camelCase) reads back the same as a new one.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunEvent } from "../../runtime/runs/types.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { apiFixture, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let runId = "";

before(async () => {
  f = await apiFixture();
  const agent = await defineTestAgent(f.runtime, "named", { raise: [{ tool: "probe.echo", to: "guarded" }] });
  const run = await f.runtime.startRun({ agent, task: "t" });
  runId = run.id;
  // The input's own camelCase name must survive both ways: it is the caller's data.
  await run.callTool("probe.echo", { text: "x", keepCase: true } as never);
  await run.end();
  await f.runtime.events.flush();
});
after(() => f.close());

const CAMEL = /"[a-z]+[A-Z][A-Za-z]*":/;

async function storedRows(): Promise<Array<{ seq: number; type: string; data: string }>> {
  const result = await f.runtime.store.execute({ sql: "SELECT seq, type, data FROM run_events WHERE run_id = ? ORDER BY seq", args: [runId] });
  return result.rows.map((r) => ({ seq: Number(r.seq), type: String(r.type), data: String(r.data) }));
}

test("stored: every key in snake_case except inside a tool's input", async () => {
  const rows = await storedRows();
  assert.ok(rows.some((r) => r.type === "tool-call") && rows.some((r) => r.type === "approval-required") && rows.some((r) => r.type === "run-ended"));
  for (const row of rows) {
    const data = JSON.parse(row.data) as Record<string, unknown>;
    const { input, ...rest } = data;
    assert.doesNotMatch(JSON.stringify(rest), CAMEL, row.data);
    if (row.type === "tool-call") assert.deepEqual(input, { text: "x", keepCase: true }, "the input as the caller wrote it");
  }
  const approval = rows.find((r) => r.type === "approval-required")!;
  assert.match(approval.data, /"tool_call_id":/);
  assert.match(approval.data, /"expires_at":/);
});

test("read back in the runtime's names, the same for a row written before in camelCase", async () => {
  const events = await f.runtime.events.list(runId);
  const asked = events.find((e) => e.type === "approval-required")!.data as Extract<RunEvent, { type: "approval-required" }>;
  assert.equal(typeof asked.toolCallId, "string");
  assert.equal(typeof asked.approval.expiresAt, "number");
  const call = events.find((e) => e.type === "tool-call")!.data as Extract<RunEvent, { type: "tool-call" }>;
  assert.deepEqual(call.input, { text: "x", keepCase: true });

  // An old row: the same event as it was stored before, camelCase.
  const seq = events.at(-1)!.seq + 1;
  const old = { ...asked, at: asked.at };
  await f.runtime.store.execute({ sql: "INSERT INTO run_events (run_id, seq, type, data, at) VALUES (?, ?, ?, ?, ?)", args: [runId, seq, old.type, JSON.stringify(old), old.at] });
  const [reread] = await f.runtime.events.list(runId, { after: seq - 1 });
  assert.deepEqual(reread!.data, asked, "an old camelCase row reads as a new one");
});

test("served: GET /v1/runs/:id/events has snake_case names, old rows too", async () => {
  const response = await fetch(`${f.server.base}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${f.token.admin}` } });
  assert.equal(response.status, 200);
  const text = await response.text();
  const datas = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).filter((d) => d.startsWith("{"));
  assert.ok(datas.length >= 4, text);
  for (const data of datas) {
    const { input, ...rest } = JSON.parse(data) as Record<string, unknown>;
    assert.doesNotMatch(JSON.stringify(rest), CAMEL, data);
    if (input !== undefined) assert.deepEqual(input, { text: "x", keepCase: true });
  }
});
