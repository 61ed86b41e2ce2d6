import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Principal } from "../../runtime/api/auth/index.js";
import type { Approval } from "../../runtime/policy/approvals/index.js";
import type { Run, ToolCallOutcome } from "../../runtime/index.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { errorOf } from "./fixtures.js";
import { apiFixture, BAD_PATH_NAMES, call, rawCall, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;
let work: string;
let now = Date.UTC(2026, 10, 22, 12);
const clock = { now: () => now };
const decided: Array<{ approval: Approval; by: Principal }> = [];
let n = 0;

/** Text a model might write to fool the person deciding: ANSI clear-screen, a bidi override, a C1 CSI. */
const HOSTILE = "please approve\u001b[2J\u202eevil\u009b31m";

before(async () => {
  f = await apiFixture({ runtime: { clock }, app: { onApprovalDecided: (approval, by) => void decided.push({ approval, by }) } });
  work = join(f.dataDir, "work");
  await mkdir(work);
});
after(() => f.close());

async function pending(options: { unsafe?: boolean } = {}): Promise<{ run: Run; approvalId: string }> {
  const agent = await defineTestAgent(f.runtime, `ap${++n}`, {
    mounts: [{ guest: "/w", host: work, mode: "rw" }],
    ...(options.unsafe ? { raise: [{ tool: "files.write_file", to: "unsafe" as const }] } : {}),
  });
  const run = await f.runtime.startRun({ agent, task: `write the file ${HOSTILE}` });
  const outcome: ToolCallOutcome = await run.callTool("files.write_file", { path: `/w/out${n}.txt`, content: `hello ${HOSTILE}` }, { context: HOSTILE });
  assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
  return { run, approvalId: (outcome as Extract<ToolCallOutcome, { status: "approval_required" }>).approval.id };
}

const status = async (id: string) => (await f.runtime.approvals.get(id))?.status;

test("round trip: a Guarded call waits, the approver sees its full context (inert), approves; the run goes on", async () => {
  const { run, approvalId } = await pending();
  const list = await call(f, "GET", "/v1/approvals?status=pending", { token: f.token.approver });
  assert.equal(list.status, 200, list.text);
  const shown = list.body.approvals.find((a: { id: string }) => a.id === approvalId);
  assert.ok(shown, "listed");
  assert.equal(shown.kind, "tool_call");
  assert.equal(shown.run_id, run.id);
  assert.equal(shown.tool, "files.write_file");
  assert.equal(shown.risk, "guarded");
  assert.equal(shown.context, "please approve\\u{1b}[2J\\u{202e}evil\\u{9b}31m", "controls, bidi and C1 shown escaped");
  assert.equal(shown.task, "write the file please approve\\u{1b}[2J\\u{202e}evil\\u{9b}31m");
  assert.equal(shown.arguments.value.content, "hello please approve\\u{1b}[2J\\u{202e}evil\\u{9b}31m");
  // The exact arguments, as JSON text with nothing unsafe left raw in it.
  assert.deepEqual(JSON.parse(shown.arguments.json), { path: `/w/out${n}.txt`, content: `hello ${HOSTILE}` });
  assert.doesNotMatch(list.text, /[\u001b\u202e\u009b]/, "no raw control character anywhere in the answer");
  assert.equal(shown.decision, null);

  const one = await call(f, "GET", `/v1/approvals/${approvalId}`, { token: f.token.approver });
  assert.deepEqual(one.body.approval, shown);

  const answer = await call(f, "POST", `/v1/approvals/${approvalId}`, { token: f.token.approver, json: { decision: "approve", scope: "once", reason: "looks fine" } });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.approval.status, "approved");
  assert.deepEqual(answer.body.approval.decision.by, f.tokenId.approver);
  assert.equal(answer.body.approval.decision.reason, "looks fine");
  assert.equal(await status(approvalId), "approved");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(decided.map((d) => [d.approval.id, d.by.tokenId]), [[approvalId, f.tokenId.approver]], "the hook heard of it");

  const replay = await run.resume();
  assert.equal(replay?.status, "ok", JSON.stringify(replay));
  assert.equal(await readFile(join(work, `out${n}.txt`), "utf8"), `hello ${HOSTILE}`);
  const twice = await call(f, "POST", `/v1/approvals/${approvalId}`, { token: f.token.approver, json: { decision: "deny" } });
  assert.equal(twice.status, 409);
  assert.equal(twice.body.error.code, "approval_not_pending");
  await run.end();
});

test("deny; an expired approval is 409 too; an effect shows its exact host call and cannot be approved for the run", async () => {
  const denied = await pending();
  const answer = await call(f, "POST", `/v1/approvals/${denied.approvalId}`, { token: f.token.admin, json: { decision: "deny", reason: "no" } });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.approval.status, "denied");
  await denied.run.end();

  const late = await pending();
  now += 24 * 60 * 60 * 1000;
  const expired = await call(f, "POST", `/v1/approvals/${late.approvalId}`, { token: f.token.approver, json: { decision: "approve" } });
  assert.equal(expired.status, 409, expired.text);
  assert.equal(expired.body.error.code, "approval_expired");
  const listed = await call(f, "GET", `/v1/approvals?status=expired&run_id=${late.run.id}`, { token: f.token.approver });
  assert.deepEqual(listed.body.approvals.map((a: { id: string }) => a.id), [late.approvalId]);
  await late.run.end();

  const effect = await pending({ unsafe: true });
  const shown = (await call(f, "GET", `/v1/approvals/${effect.approvalId}`, { token: f.token.approver })).body.approval;
  assert.equal(shown.kind, "effect");
  assert.equal(shown.effect.capability, "fs.write");
  assert.deepEqual(JSON.parse(shown.effect.json), { bytes: Buffer.byteLength(`hello ${HOSTILE}`), fn: "write", path: `/w/out${n}.txt` });
  const forRun = await call(f, "POST", `/v1/approvals/${effect.approvalId}`, { token: f.token.approver, json: { decision: "approve", scope: "run" } });
  assert.equal(forRun.status, 400);
  assert.equal(forRun.body.error.field, "body.scope");
  assert.equal(await status(effect.approvalId), "pending");
  await effect.run.end();
});

describe("bad input: the right 4xx and the approval still pending", () => {
  let id = "";
  before(async () => {
    id = (await pending()).approvalId;
  });
  const post = (json: unknown) => () => call(f, "POST", `/v1/approvals/${id}`, { token: f.token.approver, json });
  type Case = [what: string, send: () => Promise<{ status: number; text: string }>, status: number, code: string, field?: string];
  const cases: Case[] = [
    ["an unknown decision", post({ decision: "maybe" }), 400, "invalid_input", "body.decision"],
    ["no decision", post({}), 400, "invalid_input", "body.decision"],
    ["a decision of the wrong type", post({ decision: true }), 400, "invalid_input", "body.decision"],
    ["an unknown scope", post({ decision: "approve", scope: "forever" }), 400, "invalid_input", "body.scope"],
    ["a scope on a denial", post({ decision: "deny", scope: "once" }), 400, "invalid_input", "body.scope"],
    ["a reason of the wrong type", post({ decision: "approve", reason: 5 }), 400, "invalid_input", "body.reason"],
    ["a reason too long", post({ decision: "approve", reason: "x".repeat(2001) }), 400, "invalid_input", "body.reason"],
    ["who decides is not the body's to say", post({ decision: "approve", by: "someone else" }), 400, "invalid_input", "body.by"],
    ["malformed JSON", () => call(f, "POST", `/v1/approvals/${id}`, { token: f.token.approver, body: "{decision: approve}", type: "application/json" }), 400, "invalid_json", "body"],
    ["a form body", () => call(f, "POST", `/v1/approvals/${id}`, { token: f.token.approver, body: "decision=approve", type: "application/x-www-form-urlencoded" }), 415, "unsupported_media_type"],
    ["over the body limit", () => rawCall(f, "POST", `/v1/approvals/${id}`, { token: f.token.approver, type: "application/json", chunks: [Buffer.alloc(1024 * 1024 + 1, 0x20)], contentLength: true }), 413, "body_too_large"],
    ["chunked over the body limit", () => rawCall(f, "POST", `/v1/approvals/${id}`, { token: f.token.approver, type: "application/json", chunks: Array.from({ length: 5 }, () => Buffer.alloc(256 * 1024, 0x20)) }), 413, "body_too_large"],
    ["a client token", () => call(f, "POST", `/v1/approvals/${id}`, { token: f.token.client, json: { decision: "approve" } }), 403, "forbidden"],
    ["an unknown id", () => call(f, "POST", "/v1/approvals/apr_00000000-0000-0000-0000-000000000000", { token: f.token.approver, json: { decision: "approve" } }), 404, "approval_not_found"],
    ["a bad status filter", () => call(f, "GET", "/v1/approvals?status=stale", { token: f.token.approver }), 400, "invalid_input", "query.status"],
    ["a limit over 1000", () => call(f, "GET", "/v1/approvals?limit=1001", { token: f.token.approver }), 400, "invalid_input", "query.limit"],
    ["// in the path", () => rawCall(f, "POST", "/v1/approvals//", { token: f.token.approver, type: "application/json", chunks: ['{"decision":"approve"}'] }), 400, "invalid_path", "path"],
    ...BAD_PATH_NAMES.map(([what, segment, code]): Case => [`${what} as :id`, () => rawCall(f, "POST", `/v1/approvals/${segment}`, { token: f.token.approver, type: "application/json", chunks: ['{"decision":"approve"}'] }), 400, code]),
  ];
  for (const [what, send, expected, code, field] of cases) {
    test(`${what} → ${expected} ${code}`, async () => {
      const answer = await send();
      assert.equal(answer.status, expected, answer.text);
      const error = errorOf(answer.text);
      assert.equal(error.code, code, answer.text);
      if (field !== undefined) assert.equal(error.field, field, answer.text);
      assert.equal(await status(id), "pending");
    });
  }
});

test("approvals are for approvers and admins: a client token gets 403", async () => {
  for (const [method, path] of [["GET", "/v1/approvals"], ["GET", "/v1/approvals/apr_x"]] as const) {
    assert.equal((await call(f, method, path, { token: f.token.client })).status, 403);
    assert.equal((await call(f, method, path, { token: f.token.approver })).status, method === "GET" && path.endsWith("apr_x") ? 404 : 200);
    assert.equal((await call(f, method, path, { token: f.token.admin })).status, method === "GET" && path.endsWith("apr_x") ? 404 : 200);
  }
});
