import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime } from "../../runtime/index.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "./fixtures.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Listening;
let work: string;
const token: Record<"admin" | "client" | "other" | "approver", string> = { admin: "", client: "", other: "", approver: "" };

before(async () => {
  const made = await testRuntime({ runLeaseMs: 300 });
  runtime = made.runtime;
  dispose = made.dispose;
  work = join(made.dataDir, "work");
  await mkdir(work);
  await defineTestAgent(runtime, "writer", { mounts: [{ guest: "/w", host: work, mode: "rw" }], plugins: ["files", "probe"] });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  token.admin = (await tokens.create("admin")).token;
  token.client = (await tokens.create("client")).token;
  token.other = (await tokens.create("client")).token;
  token.approver = (await tokens.create("approver")).token;
  server = await listen(createApp({ runtime, tokens, version: "test" }));
});

after(async () => {
  await server.close();
  await dispose();
});

function api(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  return jsonCall(server.base, method, path, { ...options, token: options.token ?? token.client });
}

/** Reads a run's SSE stream to its `end` event. */
async function events(runId: string, options: { token?: string; after?: number } = {}): Promise<Array<{ id?: string; event: string; data: any }>> {
  const response = await fetch(`${server.base}/v1/runs/${runId}/events${options.after ? `?after=${options.after}` : ""}`, { headers: { authorization: `Bearer ${options.token ?? token.client}` } });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  const out: Array<{ id?: string; event: string; data: any }> = [];
  for (const block of (await response.text()).split("\n\n")) {
    if (!block.trim()) continue;
    const fields = Object.fromEntries(block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trimStart()]));
    out.push({ ...(fields.id ? { id: fields.id } : {}), event: fields.event ?? "message", data: JSON.parse(fields.data ?? "null") });
  }
  return out;
}

test("POST /v1/runs?wait=true runs the tool calls in order and answers with the ended run and its report", async () => {
  const { status, body } = await api("POST", "/v1/runs?wait=true", {
    body: { agent: "writer", task: "echo twice", tool_calls: [{ name: "probe.echo", input: { n: 1 } }, { name: "echo", input: { n: 2 } }] },
  });
  assert.equal(status, 201, JSON.stringify(body));
  assert.equal(body.run.status, "ended");
  assert.equal(body.run.end_reason, "completed");
  assert.deepEqual(body.run.outcomes.map((o: any) => [o.tool, o.status, o.output]), [["probe.echo", "ok", { n: 1 }], ["probe.echo", "ok", { n: 2 }]]);
  assert.ok(body.run.report.used !== undefined || body.run.report, "a least-privilege report");
  const again = await api("GET", `/v1/runs/${body.run.id}`);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body.run.outcomes, body.run.outcomes);
});

test("an SSE stream shows a run from its first tool call to its end, and resumes after a seen event", async () => {
  const { status, body } = await api("POST", "/v1/runs", { body: { agent: "writer", tool_calls: [{ name: "files.list_dir", input: { path: "/w" } }, { name: "probe.echo", input: {} }] } });
  assert.equal(status, 202, JSON.stringify(body));
  const seen = await events(body.run.id);
  const types = seen.map((e) => e.event);
  assert.equal(types[0], "tool-call");
  assert.deepEqual(types.filter((t) => t === "tool-call" || t === "tool-result" || t === "run-ended" || t === "end"), ["tool-call", "tool-result", "tool-call", "tool-result", "run-ended", "end"]);
  assert.deepEqual(seen.filter((e) => e.id).map((e) => Number(e.id)), seen.filter((e) => e.id).map((_, i) => i + 1));
  // Resuming after event 2 repeats nothing before it.
  const rest = await events(body.run.id, { after: 2 });
  assert.equal(Number(rest[0]?.id), 3);
  assert.equal(rest.at(-1)?.event, "end");
});

test("a Guarded call pauses the run; the decision resumes it and the run finishes", async () => {
  const { body } = await api("POST", "/v1/runs?wait=true", {
    body: { agent: "writer", task: "write a note", tool_calls: [{ name: "files.write_file", input: { path: "/w/note.txt", content: "hello" } }, { name: "probe.echo", input: { after: true } }] },
  });
  assert.equal(body.run.status, "awaiting_approval", JSON.stringify(body));
  const approvalId = body.run.pending_approval.id;
  await runtime.approvals.decide(approvalId, { decision: "approve", scope: "once", by: "alice" });
  const ended = await waitFor(async () => {
    const { body: now } = await api("GET", `/v1/runs/${body.run.id}`);
    return now.run.status === "ended" ? now.run : undefined;
  });
  assert.deepEqual(ended.outcomes.map((o: any) => [o.tool, o.status]), [["files.write_file", "ok"], ["probe.echo", "ok"]]);
  assert.equal(await readFile(join(work, "note.txt"), "utf8"), "hello");
});

test("a client sees only its own runs; approvers and admins see every run", async () => {
  const { body } = await api("POST", "/v1/runs?wait=true", { body: { agent: "writer", tool_calls: [{ name: "probe.echo" }] } });
  const id = body.run.id;
  assert.equal((await api("GET", `/v1/runs/${id}`, { token: token.other })).status, 404);
  assert.equal((await api("GET", `/v1/runs/${id}/events`, { token: token.other })).status, 404);
  assert.equal((await api("POST", `/v1/runs/${id}/cancel`, { token: token.other })).status, 404);
  assert.ok(!(await api("GET", "/v1/runs", { token: token.other })).body.runs.some((r: any) => r.id === id));
  assert.ok((await api("GET", "/v1/runs", { token: token.client })).body.runs.some((r: any) => r.id === id));
  assert.equal((await api("GET", `/v1/runs/${id}`, { token: token.approver })).status, 200);
  assert.equal((await api("GET", `/v1/runs/${id}`, { token: token.admin })).status, 200);
  assert.equal((await api("POST", "/v1/runs", { token: token.approver, body: { agent: "writer", tool_calls: [{ name: "probe.echo" }] } })).status, 403);
});

test("cancel ends a waiting run as cancelled; an ended run cannot be cancelled", async () => {
  const { body } = await api("POST", "/v1/runs?wait=true", { body: { agent: "writer", tool_calls: [{ name: "files.write_file", input: { path: "/w/x.txt", content: "x" } }] } });
  assert.equal(body.run.status, "awaiting_approval");
  const cancelled = await api("POST", `/v1/runs/${body.run.id}/cancel`);
  assert.equal(cancelled.status, 202, JSON.stringify(cancelled.body));
  assert.equal(cancelled.body.run.status, "ended");
  assert.equal(cancelled.body.run.end_reason, "cancelled");
  const seen = await events(body.run.id);
  assert.equal(seen.find((e) => e.event === "run-ended")?.data.reason, "cancelled");
  assert.equal((await api("POST", `/v1/runs/${body.run.id}/cancel`)).status, 409);
});

test("bad run requests are answered 4xx naming the field, and start nothing", async () => {
  const before = (await runtime.records.list({ limit: 1000 })).length;
  const table: Array<[unknown, number, string]> = [
    [{ agent: "writer" }, 400, "body.task"],
    [{ agent: "writer", task: "  " }, 400, "body.task"],
    [{ agent: "writer", task: "t", tool_calls: [{ name: "probe.echo" }], conversation_id: "conv_x" }, 400, "body.conversation_id"],
    [{ agent: "writer", task: "t", conversation_id: "../x" }, 400, "body.conversation_id"],
    [{ agent: "writer", tool_calls: [] }, 400, "body.tool_calls"],
    [{ agent: "writer", tool_calls: [{ name: 7 }] }, 400, "body.tool_calls.0.name"],
    [{ agent: "writer", tool_calls: [{ name: "nope.tool" }] }, 400, "tool_calls[0].name"],
    [{ agent: "Writer!", tool_calls: [{ name: "probe.echo" }] }, 400, "body.agent"],
    [{ agent: "writer", tool_calls: [{ name: "probe.echo" }], extra: 1 }, 400, "body.extra"],
    [{ agent: "writer", tool_calls: [{ name: "probe.echo" }], grants: { "fs.write": { mounts: [{ guest: "/etc", host: "/etc" }] } } }, 400, "grants"],
  ];
  for (const [body, status, field] of table) {
    const response = await api("POST", "/v1/runs", { body });
    assert.equal(response.status, status, JSON.stringify([body, response.body]));
    assert.ok(String(response.body.error.field ?? "").startsWith(field), JSON.stringify([body, response.body.error]));
  }
  assert.equal((await api("POST", "/v1/runs", { body: { agent: "ghost", tool_calls: [{ name: "probe.echo" }] } })).status, 404);
  assert.equal((await api("POST", "/v1/runs", { body: { agent: "ghost", task: "hello" } })).status, 404);
  assert.equal((await api("POST", "/v1/runs", { body: { agent: "writer", task: "hello", conversation_id: "conv_nope" } })).status, 404);
  assert.equal((await api("GET", "/v1/runs/..%2Fsecrets")).status, 400);
  assert.equal((await api("GET", "/v1/runs/run_nope")).status, 404);
  assert.equal((await api("GET", "/v1/runs?limit=abc")).status, 400);
  assert.equal((await runtime.records.list({ limit: 1000 })).length, before);
});

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("POST /v1/runs with a tool input nested 20,000 deep → 400 json_too_deep naming where; a __proto__ key → the call is refused and audited", async () => {
  const depth = 20_000;
  const body = `{"agent":"writer","task":"deep","tool_calls":[{"name":"probe.echo","input":{"a":${"[".repeat(depth)}${"]".repeat(depth)}}}]}`;
  const response = await fetch(`${server.base}/v1/runs?wait=true`, { method: "POST", headers: { authorization: `Bearer ${token.client}`, "content-type": "application/json" }, body });
  const error = ((await response.json()) as { error: { code: string; field: string; message: string } }).error;
  assert.equal(response.status, 400);
  assert.equal(error.code, "json_too_deep");
  assert.match(error.field, /^body\.tool_calls\[0\]\.input\.a\[0\]/);
  // Control: the same call within the limits runs; with a __proto__ key it is refused, audited.
  const proto = `{"agent":"writer","task":"proto","tool_calls":[{"name":"probe.echo","input":{"a":[[1]]}},{"name":"probe.echo","input":{"x":{"__proto__":{"admin":true}}}}]}`;
  const started = await fetch(`${server.base}/v1/runs?wait=true`, { method: "POST", headers: { authorization: `Bearer ${token.client}`, "content-type": "application/json" }, body: proto });
  const run = ((await started.json()) as { run: { id: string } }).run;
  assert.equal(started.status, 201);
  await runtime.audit.flush();
  const records = (await runtime.audit.query({ runId: run.id, kind: "tool_call", order: "asc" })).records;
  assert.deepEqual(records.map((r) => [r.status, r.denial?.reason ?? null]).filter(([s]) => s !== "intent"), [["ok", null], ["denied", "forbidden-key"]]);
});
