/**
 * Webhooks: signed deliveries a receiver can check, retries then a dead letter the API shows, a
 * receiver that hangs or fails costs a run nothing, URLs refused at load (field named) and
 * addresses vetted again at delivery, the approvers' SSE stream, the Slack/Teams template.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../runtime/config/index.js";
import { slackMessage, urlProblem, verifyDelivery, WebhookDispatcher, webhookTarget, type WebhookPayload } from "../../runtime/webhooks/index.js";
import { defineTestAgent, tempDir } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "../api/routes-fixtures.js";
import { listen } from "../api/fixtures.js";
import { createApp } from "../../runtime/api/app.js";

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

/** A receiver whose answer each test sets: a status, or `hold` (answer only when released). */
let mode: { status: number } | "hold" = { status: 200 };
const received: Received[] = [];
const held: ServerResponse[] = [];
let receiver: Server;
let base = "";
let f: ApiFixture;
let dispatcher: WebhookDispatcher;
const SECRET = "whsec-0123456789abcdef";

before(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (mode === "hold") held.push(res);
      else res.writeHead(mode.status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const fixture = await apiFixture();
  await fixture.runtime.setSecret("hook-secret", SECRET);
  dispatcher = new WebhookDispatcher({
    targets: [webhookTarget({ url: `${base}/hook`, secret: "hook-secret", allow_loopback: true })],
    store: fixture.runtime.store,
    approvals: fixture.runtime.approvals,
    pollMs: 20,
    secretValue: (name) => fixture.runtime.secretValue(name),
    attempts: 3,
    baseDelayMs: 1,
    timeoutMs: 2000,
  });
  // The same runtime behind an app that serves the dispatcher's routes.
  const server = await listen(createApp({ runtime: fixture.runtime, tokens: fixture.tokens, version: "test", webhooks: dispatcher }));
  f = { ...fixture, server, close: async () => { await server.close(); await fixture.close(); } };
});
after(async () => {
  for (const res of held) res.end();
  await dispatcher.close();
  await f.close();
  await new Promise((resolve) => receiver.close(resolve));
});

test("run.ended and approval.requested are delivered signed; the signature checks with the secret and fails with another", async () => {
  received.length = 0;
  mode = { status: 200 };
  const agent = await defineTestAgent(f.runtime, "hooked", { raise: [{ tool: "probe.echo", to: "guarded" }] });
  const run = await f.runtime.startRun({ agent, task: "t" });
  dispatcher.observe(run);
  assert.equal((await run.callTool("probe.echo", { text: "x" })).status, "approval_required");
  await run.end();
  await dispatcher.idle();
  const types = received.map((r) => r.headers["x-clawhive-event"]);
  assert.deepEqual(types.sort(), ["approval.requested", "run.ended"]);
  for (const r of received) {
    const options = { timestamp: String(r.headers["x-clawhive-timestamp"]), signature: String(r.headers["x-clawhive-signature"]), body: r.body };
    assert.ok(verifyDelivery(SECRET, options), "signed with the secret");
    assert.ok(!verifyDelivery("another-secret-value", options), "control: another secret does not verify");
    assert.ok(!verifyDelivery(SECRET, { ...options, body: r.body.replace("hooked", "hacked") }), "control: a changed body does not verify");
    assert.ok(!verifyDelivery(SECRET, { ...options, now: Date.now() + 3_600_000 }), "control: an old delivery does not verify");
    const payload = JSON.parse(r.body) as WebhookPayload;
    assert.equal(payload.data.run_id, run.id);
    assert.equal(payload.data.trace_id, run.traceId);
  }
});

test("a receiver answering 500 is retried, then the delivery is a dead letter shown by the API (origin only)", async () => {
  received.length = 0;
  mode = { status: 500 };
  dispatcher.emit("run.ended", { run_id: "run_x", agent: "a", end_reason: "completed" });
  await dispatcher.idle();
  assert.equal(received.length, 3, "three attempts");
  const page = await call(f, "GET", "/v1/webhooks/dead-letters?limit=10");
  assert.equal(page.status, 200, page.text);
  const letter = page.body.dead_letters.find((d: { payload: WebhookPayload }) => d.payload.data.run_id === "run_x");
  assert.ok(letter, page.text);
  assert.equal(letter.attempts, 3);
  assert.equal(letter.last_error, "HTTP 500");
  assert.equal(letter.target, base, "the receiver's origin, not its path");
  assert.equal((await call(f, "GET", "/v1/webhooks/dead-letters", { token: f.token.client })).status, 403);
});

test("a receiver that hangs does not hold a run up: the run ends while the delivery waits", async () => {
  received.length = 0;
  mode = "hold";
  const agent = await defineTestAgent(f.runtime, "hung");
  const { run, settled } = await f.runtime.submitRun({ agent, toolCalls: [{ name: "probe.count", input: {} }] });
  dispatcher.observe(run);
  await settled;
  assert.equal((await f.runtime.records.get(run.id))?.status, "ended", "the run ended with its delivery unanswered");
  mode = { status: 200 };
  for (const res of held.splice(0)) res.writeHead(200).end();
  await dispatcher.idle();
});

test("the approvers' stream gets approval.requested and approval.decided as they happen", async () => {
  mode = { status: 200 };
  const controller = new AbortController();
  const response = await fetch(`${f.server.base}/v1/approvals/events`, { headers: { authorization: `Bearer ${f.token.approver}` }, signal: controller.signal });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const agent = await defineTestAgent(f.runtime, "streamed", { raise: [{ tool: "probe.echo", to: "guarded" }] });
  const run = await f.runtime.startRun({ agent, task: "t" });
  const outcome = await run.callTool("probe.echo", { text: "x" });
  assert.equal(outcome.status, "approval_required");
  const id = outcome.status === "approval_required" ? outcome.approval.id : "";
  let text = "";
  while (!text.includes(`evt_${id}_requested`)) text += new TextDecoder().decode((await reader.read()).value);
  await f.runtime.approvals.decide(id, { decision: "approve", by: "someone" });
  while (!text.includes(`evt_${id}_decided`)) text += new TextDecoder().decode((await reader.read()).value);
  assert.match(text, /event: approval\.requested/);
  assert.match(text, /event: approval\.decided/);
  controller.abort();
  await run.end();
  await dispatcher.idle();
  const client = await fetch(`${f.server.base}/v1/approvals/events`, { headers: { authorization: `Bearer ${f.token.client}` } });
  assert.equal(client.status, 403, "a client token does not read approvals");
});

describe("receiver URLs: refused unless public https, or explicitly allowed loopback", () => {
  const cases: Array<[url: string, allowLoopback: boolean, ok: boolean]> = [
    ["https://hooks.example.com/x", false, true],
    ["http://hooks.example.com/x", false, false],
    ["http://127.0.0.1:9000/x", false, false],
    ["http://127.0.0.1:9000/x", true, true],
    ["https://localhost/x", false, false],
    ["https://10.0.0.5/x", false, false],
    ["https://[::1]/x", false, false],
    ["https://169.254.169.254/latest/meta-data", false, false],
    ["https://user:pass@hooks.example.com/x", false, false],
    ["ftp://hooks.example.com/x", false, false],
    ["not a url", false, false],
  ];
  for (const [url, allow, ok] of cases) {
    test(`${url}${allow ? " (allow_loopback)" : ""} → ${ok ? "accepted" : "refused"}`, () => {
      assert.equal(urlProblem(url, allow) === undefined, ok, urlProblem(url, allow));
    });
  }

  test("an invalid URL in clawhive.yaml is refused at load, naming the field", async () => {
    const dir = await tempDir("clawhive-hooks-config-");
    await writeFile(join(dir, "clawhive.yaml"), "webhooks:\n  - url: https://hooks.example.com/ok\n  - url: http://127.0.0.1:9/x\n");
    await assert.rejects(loadConfig({ env: {}, cwd: dir, flags: {} }), (error: Error) => /webhooks/.test(error.message) && /url/.test(error.message));
    await writeFile(join(dir, "clawhive.yaml"), "webhooks:\n  - url: http://127.0.0.1:9/x\n    allow_loopback: true\n");
    const config = await loadConfig({ env: {}, cwd: dir, flags: {} });
    assert.equal(config.webhooks[0]?.allowLoopback, true, "control: allowed explicitly");
  });

  test("a name that resolves to a private address is refused at delivery (DNS pinning), and dead-lettered", async () => {
    const pinned = new WebhookDispatcher({
      targets: [webhookTarget({ url: "https://hooks.example.com/x" })],
      store: f.runtime.store,
      approvals: f.runtime.approvals,
      secretValue: (name) => f.runtime.secretValue(name),
      attempts: 1,
      resolver: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    pinned.emit("run.ended", { run_id: "run_dns", agent: "a" });
    await pinned.idle();
    const letters = await pinned.deadLetters.list({ limit: 100 });
    const letter = letters.find((d) => d.payload.data.run_id === "run_dns");
    assert.ok(letter);
    assert.match(letter.lastError, /127\.0\.0\.1/);
  });
});

test("the Slack message of an event without an approval (run.ended): values in code spans, model text cannot forge links or mentions", () => {
  const message = slackMessage({ payload: { id: "evt_1", type: "run.ended", created_at: "", data: { run_id: "run_1", agent: "<!channel> <https://evil|click> \u001b[2J", end_reason: "completed" } } });
  const text = JSON.stringify(message);
  assert.ok(!text.includes("<!channel>") && !text.includes("<https://evil"), text);
  assert.match(message.text, /`&lt;!channel&gt; &lt;https\[:\]\/\/evil\|click&gt; \\u\{1b\}\[2J`/);
  assert.match(JSON.stringify(message.blocks), /run_1/, "control: the run id is shown as it is");
});
