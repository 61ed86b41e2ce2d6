/**
 * Two runtimes on one store file, each with its dispatcher and the same receiver: node A's
 * approvers' stream shows what node B's runs ask for and what is decided anywhere — B's
 * approvals store (as the CLI decides), A's API, an MCP-style withdrawal — and each decision
 * reaches the receiver exactly once, whichever node sent it.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdir, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { openTokenStore } from "../../runtime/api/auth/index.js";
import { Runtime } from "../../runtime/index.js";
import { WebhookDispatcher, webhookTarget, type WebhookPayload } from "../../runtime/webhooks/index.js";
import { defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDataDir } from "../helpers/runtime.js";
import { jsonCall, listen, type Listening } from "../api/fixtures.js";

interface Node {
  runtime: Runtime;
  dispatcher: WebhookDispatcher;
}

const deliveries: WebhookPayload[] = [];
let receiver: Server;
let dataDir: string;
let a: Node;
let b: Node;
let server: Listening;
let approver = "";

async function node(name: string, url: string): Promise<Node> {
  const agentsDir = join(dataDir, `agents-${name}`);
  await mkdir(agentsDir, { recursive: true });
  const runtime = await Runtime.create({ dataDir, agentsDir, pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN], sandbox: { poolSize: 0 } });
  const dispatcher = new WebhookDispatcher({
    targets: [webhookTarget({ url, events: ["approval.decided"], allow_loopback: true })],
    store: runtime.store,
    approvals: runtime.approvals,
    pollMs: 20,
    secretValue: (secret) => runtime.secretValue(secret),
    attempts: 1,
  });
  return { runtime, dispatcher };
}

before(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as WebhookPayload);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  dataDir = await tempDataDir("clawhive-every-node-");
  a = await node("a", url);
  b = await node("b", url);
  await defineTestAgent(b.runtime, "asker", { raise: [{ tool: "probe.echo", to: "guarded" }] });
  const tokens = await openTokenStore(a.runtime.store, { clock: a.runtime.clock });
  approver = (await tokens.create("approver")).token;
  server = await listen(createApp({ runtime: a.runtime, tokens, version: "a", webhooks: a.dispatcher }));
});

after(async () => {
  await server.close();
  for (const n of [b, a]) {
    await n.dispatcher.close();
    await n.runtime.close();
  }
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

/** Node A's stream, read until `want` has come. */
async function streamOfA(): Promise<{ until: (want: string) => Promise<string>; close: () => void }> {
  const controller = new AbortController();
  const response = await fetch(`${server.base}/v1/approvals/events`, { headers: { authorization: `Bearer ${approver}` }, signal: controller.signal });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  let text = "";
  return {
    until: async (want) => {
      while (!text.includes(want)) text += new TextDecoder().decode((await reader.read()).value);
      return text;
    },
    close: () => controller.abort(),
  };
}

/** B's run asks for an approval; its id. */
async function askOnB(): Promise<{ id: string; end: () => Promise<void> }> {
  const run = await b.runtime.startRun({ agent: "asker", task: "t" });
  const outcome = await run.callTool("probe.echo", { text: "x" });
  assert.equal(outcome.status, "approval_required");
  return { id: outcome.status === "approval_required" ? outcome.approval.id : "", end: async () => void (await run.end()) };
}

/** Both nodes have read the store and sent what they claimed. */
async function settle(): Promise<void> {
  for (const n of [a, b]) await n.dispatcher.approvalFeed.poll();
  for (const n of [a, b]) await n.dispatcher.idle();
}

const decidedFor = (id: string) => deliveries.filter((d) => d.type === "approval.decided" && (d.data.approval as { id: string }).id === id);

const DECIDERS: ReadonlyArray<[string, (id: string) => Promise<void>]> = [
  ["node B's store, as the CLI decides", async (id) => void (await b.runtime.approvals.decide(id, { decision: "approve", by: "cli-user" }))],
  ["node A's API", async (id) => assert.equal((await jsonCall(server.base, "POST", `/v1/approvals/${id}`, { token: approver, body: { decision: "deny" } })).status, 200)],
  ["an MCP withdrawal on node B (a deny by the session)", async (id) => void (await b.runtime.approvals.decide(id, { decision: "deny", by: "clawhive:mcp", reason: "nobody decided in time" }))],
];

for (const [path, decide] of DECIDERS) {
  test(`decided through ${path}: A's stream shows the request and the decision; the receiver gets approval.decided once`, { timeout: 60_000 }, async () => {
    const stream = await streamOfA();
    try {
      const asked = await askOnB();
      await stream.until(`evt_${asked.id}_requested`);
      await decide(asked.id);
      const text = await stream.until(`evt_${asked.id}_decided`);
      assert.equal(text.split(`id: evt_${asked.id}_decided`).length - 1, 1, "told once on the stream");
      await settle();
      await settle();
      assert.equal(decidedFor(asked.id).length, 1, JSON.stringify(decidedFor(asked.id)));
      await asked.end();
    } finally {
      stream.close();
    }
  });
}

test("control: an approval nobody decided (its run ended and withdrew it) is streamed as requested and sends no approval.decided", { timeout: 60_000 }, async () => {
  const stream = await streamOfA();
  try {
    const asked = await askOnB();
    await stream.until(`evt_${asked.id}_requested`);
    await asked.end();
    await settle();
    assert.equal(decidedFor(asked.id).length, 0);
    assert.equal((await a.runtime.approvals.get(asked.id))?.status, "withdrawn", "the run's end withdrew it: not a decision");
  } finally {
    stream.close();
  }
});
