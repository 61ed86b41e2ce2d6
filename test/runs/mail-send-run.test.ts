/**
 * mail.send as an agent reaches it: the mail plugin's `send` tool, Guarded, under a grant of
 * `*@corp.example`, sending over SMTP to a server started here. A recipient outside the grant,
 * a lookalike domain or a CRLF in the subject is refused before any person is asked; a granted
 * message waits for the approval (which shows recipients, subject and body), is sent once when
 * replayed, and its intent is on record before the send.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Runtime, ToolCallOutcome } from "../../runtime/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { testRuntime } from "../helpers/runtime.js";
import { smtpServer } from "../host-proxies/mail/fakes.js";

let runtime: Runtime;
let dispose: () => Promise<void>;
let smtp: Awaited<ReturnType<typeof smtpServer>>;

before(async () => {
  smtp = await smtpServer();
  ({ runtime, dispose } = await testRuntime({
    pluginDirs: [join(PROJECT_ROOT, "plugins", "mail")],
    mailSend: { transport: "smtp", host: "127.0.0.1", port: smtp.port, from: "agent@corp.example", timeoutMs: 10_000 },
    sandbox: { callTimeoutMs: 15_000 },
  }));
  await runtime.defineAgent({
    name: "sender", description: "x", model: { provider: "anthropic", id: "m" }, system_prompt: "x",
    plugins: [{ name: "mail", version: "*" }],
    grants: { "mail.send": { recipients: ["*@corp.example"] } },
  });
});
after(async () => {
  await dispose();
  await smtp.close();
});

const message = (over: Record<string, unknown> = {}) => ({ to: ["alice@corp.example"], subject: "Figures", body: "Hello Alice,\nQ3 is up.", ...over });

const REFUSED: Array<[string, Record<string, unknown>, string]> = [
  ["a recipient outside the grant", { to: ["eve@evil.test"] }, "recipient-not-granted"],
  ["an outsider in Bcc", { bcc: ["eve@evil.test"] }, "recipient-not-granted"],
  ["a lookalike domain", { to: ["alice@corp.example.evil.test"] }, "recipient-not-granted"],
  ["a CRLF in the subject", { subject: "Figures\r\nBcc: eve@evil.test" }, "invalid-input"],
  ["a display name hiding an address", { to: ["Alice <eve@evil.test>"] }, "invalid-input"],
];

for (const [what, over, reason] of REFUSED) {
  test(`mail.send with ${what}: refused before anyone is asked (${reason})`, async () => {
    const run = await runtime.startRun({ agent: "sender" });
    const outcome = await run.callTool("mail.send", message(over));
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    assert.equal((outcome as { error: { denial?: { reason: string } } }).error.denial?.reason, reason);
    assert.deepEqual(await runtime.approvals.list({ runId: run.id }), [], "nobody was asked");
    await run.end();
  });
}

test("control: a granted message waits for a person, whose approval shows recipients, subject and body; approved, it is sent once", async () => {
  const before = smtp.received.length;
  const run = await runtime.startRun({ agent: "sender" });
  const asked = await run.callTool("mail.send", message({ cc: ["bob@corp.example"] }));
  assert.equal(asked.status, "approval_required", JSON.stringify(asked));
  const approval = (asked as Extract<ToolCallOutcome, { status: "approval_required" }>).approval;
  const [pending] = await runtime.approvals.list({ runId: run.id });
  assert.deepEqual(pending?.input, { to: ["alice@corp.example"], cc: ["bob@corp.example"], subject: "Figures", body: "Hello Alice,\nQ3 is up." });
  assert.equal(smtp.received.length, before, "nothing sent before the approval");
  await runtime.approvals.decide(approval.id, { decision: "approve", scope: "once", by: "alice" });
  const done = await run.resume();
  assert.equal(done?.status, "ok", JSON.stringify(done));
  assert.equal(smtp.received.length, before + 1);
  assert.deepEqual(smtp.received[before]!.to, ["alice@corp.example", "bob@corp.example"]);
  const { records } = await runtime.audit.query({ runId: run.id, limit: 50 });
  // The host call's record binds the recipients, the subject and the body's digest.
  const sends = records.filter((r) => r.kind !== "tool_call" && (r.args ?? "").includes('"fn":"send"'));
  assert.ok(sends.some((r) => (r.args ?? "").includes('"to":["alice@corp.example"]') && (r.args ?? "").includes('"body_sha256"')), JSON.stringify(records.map((r) => [r.kind, r.args])));
  await run.end();
});
