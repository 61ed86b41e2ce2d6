/**
 * Durable approval push: an approval asked for while no dispatcher ran (by `clawhive run` in
 * another process, or on a node that died) is pushed once a dispatcher runs; two dispatchers on
 * one store push it once; a push a dead node left half done is taken over; a target failing
 * every attempt is given up once (dead letter, audited) and never retried by a restart. The JSON
 * payload carries the approval's risk and its console decision link.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Approval } from "../../runtime/policy/approvals/index.js";
import { approvalPayload } from "../../runtime/webhooks/payload.js";
import { WebhookDispatcher, webhookTarget, type WebhookDispatcherOptions, type WebhookFileEntry } from "../../runtime/webhooks/index.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import type { Runtime } from "../../runtime/index.js";
import { SLACK_PATH, startPushFakes, type PushFakes } from "./push-fakes.js";

const CONSOLE = "https://clawhive.example.com/console";
/** The dispatchers' clock, a minute ahead: what was asked "now" is past the feed's 5 s look-back. */
const LATER = () => Date.now() + 60_000;
let fakes: PushFakes;
let runtime: Runtime;
let dispose: () => Promise<void>;

before(async () => {
  fakes = await startPushFakes("1:unused");
  const made = await testRuntime();
  runtime = made.runtime;
  dispose = made.dispose;
});
after(async () => {
  fakes.release();
  await fakes.close();
  await dispose();
});

function slack(path: string): WebhookFileEntry {
  return { url: `${fakes.base}${SLACK_PATH}${path}`, format: "slack", allow_loopback: true, events: ["approval.requested"] };
}

function dispatcher(entry: WebhookFileEntry, options: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
  return new WebhookDispatcher({
    targets: [webhookTarget(entry)],
    store: runtime.store,
    approvals: runtime.approvals,
    pollMs: 20,
    sweepMs: 20,
    secretValue: (name) => runtime.secretValue(name),
    attempts: 2,
    baseDelayMs: 1,
    timeoutMs: 2000,
    consoleUrl: CONSOLE,
    audit: runtime.audit,
    now: LATER,
    ...options,
  });
}

/** A run paused on a Guarded probe.echo, asked with no dispatcher running. */
async function askedWhileNoServer(agent: string): Promise<Approval> {
  await defineTestAgent(runtime, agent, { raise: [{ tool: "probe.echo", to: "guarded" }] });
  const run = await runtime.startRun({ agent, task: "t" });
  const outcome = await run.callTool("probe.echo", { text: "hi" });
  assert.equal(outcome.status, "approval_required");
  return (await runtime.approvals.get(outcome.status === "approval_required" ? outcome.approval.id : ""))!;
}

const about = (a: Approval, path: string) => fakes.received.filter((r) => r.path.endsWith(path) && JSON.stringify(r.body).includes(a.id));

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(await check(), `timed out waiting for ${what}`);
}

async function outboxRow(a: Approval): Promise<{ state: string; attempts: number } | undefined> {
  const rows = (await runtime.store.execute({ sql: "SELECT state, attempts FROM webhook_outbox WHERE approval_id = ?", args: [a.id] })).rows;
  return rows[0] === undefined ? undefined : { state: String(rows[0].state), attempts: Number(rows[0].attempts) };
}

test("an approval asked while no dispatcher ran is pushed once two start on one store", async () => {
  const asked = await askedWhileNoServer("outbox-late");
  const one = dispatcher(slack("/late"), { node: "node-a" });
  const two = dispatcher(slack("/late"), { node: "node-b" });
  try {
    await until(() => about(asked, "/late").length >= 1, "the late push");
    await one.idle();
    await two.idle();
    assert.equal(about(asked, "/late").length, 1, "pushed once across the two nodes");
    assert.deepEqual(await outboxRow(asked), { state: "sent", attempts: 1 });
  } finally {
    await one.close();
    await two.close();
  }
  // Control: a dispatcher that only looks back the feed's window (no catch-up) never sees it.
  const blind = dispatcher(slack("/blind"), { catchUpMs: 1 });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    await blind.idle();
    assert.equal(about(asked, "/blind").length, 0);
  } finally {
    await blind.close();
  }
});

test("a push a dead node left leased is taken over once its lease lapses, and counted on", async () => {
  const asked = await askedWhileNoServer("outbox-orphan");
  // A node that owed it, took the lease for its first attempt and died (the lease has lapsed).
  const key = webhookTarget(slack("/orphan"));
  const { DeliveryOutbox } = await import("../../runtime/webhooks/outbox.js");
  const { targetKey } = await import("../../runtime/webhooks/config.js");
  const outbox = new DeliveryOutbox(runtime.store, "dead");
  await outbox.add({ eventId: `evt_${asked.id}_requested`, approvalId: asked.id, type: "approval.requested", targetKey: targetKey(key) }, Date.now());
  assert.ok(await outbox.lease(`evt_${asked.id}_requested`, targetKey(key), { now: Date.now() - 120_000, leaseMs: 1000, renew: false }));
  // No catch-up and a feed that cannot see it: only the sweep of the outbox finds it.
  const live = dispatcher(slack("/orphan"), { node: "live", catchUpMs: 0 });
  try {
    await until(() => about(asked, "/orphan").length >= 1, "the taken-over push");
    await live.idle();
    assert.equal(about(asked, "/orphan").length, 1);
    assert.deepEqual(await outboxRow(asked), { state: "sent", attempts: 2 }, "the dead node's attempt counts");
  } finally {
    await live.close();
  }
});

test("a target failing every attempt is given up once, audited, and not retried by a restart", async () => {
  const asked = await askedWhileNoServer("outbox-fail");
  fakes.mode.slack = { kind: "status", status: 500 };
  const first = dispatcher(slack("/fail"), { node: "first" });
  try {
    await until(async () => (await outboxRow(asked))?.state === "failed", "the push given up");
    await first.idle();
  } finally {
    await first.close();
    fakes.mode.slack = { kind: "ok" };
  }
  assert.equal(about(asked, "/fail").length, 2, "two attempts, then given up");
  const letters = (await first.deadLetters.list({ limit: 100 })).filter((l) => l.payload.id === `evt_${asked.id}_requested`);
  assert.equal(letters.length, 1);
  const outcomes = (await runtime.audit.query({ runId: asked.runId, limit: 1000 })).records.filter((r) => r.hostCall?.proxy === "webhooks");
  assert.ok(outcomes.some((r) => r.status === "error"), "the give-up is audited");
  const restarted = dispatcher(slack("/fail"), { node: "restarted" });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    await restarted.idle();
    assert.equal(about(asked, "/fail").length, 2, "a failed row is never sent again");
  } finally {
    await restarted.close();
  }
});

test("the JSON payload carries the approval's risk and, with a console URL, its decision link", async () => {
  const asked = await askedWhileNoServer("outbox-json");
  const withLink = approvalPayload("approval.requested", asked, CONSOLE).data.approval as Record<string, unknown>;
  assert.equal(withLink.risk, "guarded");
  assert.equal(withLink.decision_url, `${CONSOLE}/approvals/${asked.id}`);
  const without = approvalPayload("approval.requested", asked).data.approval as Record<string, unknown>;
  assert.equal(without.risk, "guarded");
  assert.equal(without.decision_url, undefined, "control: no console URL, no link");
});
