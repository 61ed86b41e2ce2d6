/**
 * Push delivery of approvals to Slack, Teams and a Telegram bot, against local fakes that check
 * each service's request shape: the message carries the approval's summary and the console
 * link; a decision made anywhere is pushed too; each delivery is audited; a failing service
 * (5xx, 429, a hang, a permanent 4xx) is retried within bounds then dead-lettered, and the bot
 * token never reaches a dead letter or a log line.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import * as v from "valibot";
import { createLogger } from "../../runtime/log/index.js";
import type { Approval } from "../../runtime/policy/approvals/index.js";
import { TELEGRAM_API, WebhookDispatcher, WebhookFileSchema, webhookTarget, type WebhookDispatcherOptions, type WebhookFileEntry } from "../../runtime/webhooks/index.js";
import { defineTestAgent, testRuntime } from "../helpers/runtime.js";
import type { Runtime } from "../../runtime/index.js";
import { SLACK_PATH, startPushFakes, TEAMS_PATH, type PushFakes } from "./push-fakes.js";

const TOKEN = "123456789:AAH-fake-bot-token_0123456789abcdef";
const CONSOLE = "https://clawhive.example.com/console";
let fakes: PushFakes;
let runtime: Runtime;
let dispose: () => Promise<void>;
let logged = "";
const logger = createLogger({ level: "debug", format: "json", destination: new Writable({ write: (chunk: Buffer, _e, done) => ((logged += chunk.toString()), done()) }) });

before(async () => {
  fakes = await startPushFakes(TOKEN);
  const made = await testRuntime();
  runtime = made.runtime;
  dispose = made.dispose;
  await runtime.setSecret("tg-bot", TOKEN);
});
after(async () => {
  fakes.release();
  await fakes.close();
  await dispose();
});

function targets(events?: WebhookFileEntry["events"]): WebhookFileEntry[] {
  return [
    { url: `${fakes.base}${SLACK_PATH}`, format: "slack", allow_loopback: true, ...(events === undefined ? {} : { events }) },
    { url: `${fakes.base}${TEAMS_PATH}`, format: "teams", allow_loopback: true, ...(events === undefined ? {} : { events }) },
    { url: fakes.base, format: "telegram", bot_token: "tg-bot", chat_id: "-1001234567890", allow_loopback: true, ...(events === undefined ? {} : { events }) },
  ];
}

function dispatcher(entries: WebhookFileEntry[], options: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
  return new WebhookDispatcher({
    targets: entries.map(webhookTarget),
    store: runtime.store,
    approvals: runtime.approvals,
    pollMs: 20,
    secretValue: (name) => runtime.secretValue(name),
    attempts: 3,
    baseDelayMs: 1,
    timeoutMs: 2000,
    consoleUrl: CONSOLE,
    audit: runtime.audit,
    log: logger,
    ...options,
  });
}

/** A run paused on a Guarded probe.echo whose text is `text`; its approval. */
async function pendingApproval(agent: string, text: string): Promise<Approval> {
  await defineTestAgent(runtime, agent, { raise: [{ tool: "probe.echo", to: "guarded" }] });
  const run = await runtime.startRun({ agent, task: "t" });
  const outcome = await run.callTool("probe.echo", { text });
  assert.equal(outcome.status, "approval_required");
  const approval = await runtime.approvals.get(outcome.status === "approval_required" ? outcome.approval.id : "");
  assert.ok(approval);
  return approval;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(await check(), `timed out waiting for ${what}`);
}

/** What the fakes received about `approval` (a dispatcher started now also sends what was asked in the last seconds). */
function about(approval: Approval): PushFakes["received"] {
  return fakes.received.filter((r) => JSON.stringify(r.body).includes(approval.id));
}

async function deadLetter(d: WebhookDispatcher, approval: Approval) {
  return (await d.deadLetters.list({ limit: 100 })).find((l) => l.payload.id === `evt_${approval.id}_requested`);
}

test("an approval asked for reaches Slack, Teams and Telegram in each one's shape, with the summary and the console link; its decision follows", async () => {
  fakes.received.length = 0;
  const d = dispatcher(targets());
  try {
    const approval = await pendingApproval("pushed", "hello world");
    const link = `${CONSOLE}/approvals/${approval.id}`;
    await until(() => about(approval).length >= 3, "three requested messages");
    await d.idle();
    assert.deepEqual(fakes.bad, [], "every request had the service's shape");
    const byService = Object.fromEntries(fakes.received.map((r) => [r.service, r.body]));
    const slack = JSON.stringify(byService.slack);
    assert.match(String(byService.slack?.text), /probe\.echo/);
    for (const shown of ["pushed", "probe.echo", "guarded", "hello world", approval.id]) assert.ok(slack.includes(shown), `slack shows ${shown}: ${slack}`);
    assert.ok(slack.includes(`"url":"${link}"`), "slack: a URL button to the decision page");
    const teams = byService.teams as { attachments: Array<{ content: { actions: Array<{ type: string; url: string }> } }> };
    assert.deepEqual(teams.attachments[0]?.content.actions, [{ type: "Action.OpenUrl", title: "Open in the console", url: link }]);
    for (const shown of ["pushed", "probe.echo", "guarded", "hello world"]) assert.ok(JSON.stringify(teams).includes(shown), `teams shows ${shown}`);
    const telegram = byService.telegram as { chat_id: string; text: string; parse_mode: string; reply_markup: { inline_keyboard: Array<Array<{ text: string; url: string }>> } };
    assert.equal(telegram.chat_id, "-1001234567890");
    assert.equal(telegram.parse_mode, "HTML");
    assert.deepEqual(telegram.reply_markup.inline_keyboard, [[{ text: "Open in the console", url: link }]]);
    assert.match(telegram.text, /<b>Tool:<\/b> <code>probe\.echo<\/code>/);
    assert.match(telegram.text, /<b>Argument text:<\/b> <code>hello world<\/code>/);
    // No message decides by a click: the only links are the console page's.
    for (const r of fakes.received) assert.deepEqual(JSON.stringify(r.body).match(/https?:\/\/[^"\\ ]+/g)?.filter((u) => !u.startsWith("http://adaptivecards.io/")), [link], r.service);

    fakes.received.length = 0;
    await runtime.approvals.decide(approval.id, { decision: "approve", by: "ana" });
    await until(() => about(approval).length >= 3, "three decided messages");
    await d.idle();
    for (const r of fakes.received) assert.match(JSON.stringify(r.body), /Approval granted[\s\S]*ana/, r.service);

    const records = (await runtime.audit.query({ runId: approval.runId, limit: 1000 })).records.filter((r) => r.hostCall?.proxy === "webhooks");
    const intents = records.filter((r) => r.status === "intent");
    assert.equal(intents.length, 6, "an intent per delivery: two events, three services");
    assert.equal(records.filter((r) => r.status === "ok").length, 6, "an outcome per delivery");
    assert.ok(intents.some((r) => r.args?.includes('"format":"telegram"') && r.args.includes(approval.id)));
    assert.ok(!JSON.stringify(records).includes(TOKEN), "the audit never holds the bot token");
  } finally {
    await d.close();
  }
});

test("two nodes on one store push an approval once per chat: the claims decide who sends", async () => {
  fakes.received.length = 0;
  const one = dispatcher(targets(["approval.requested"]));
  const two = dispatcher(targets(["approval.requested"]));
  try {
    const approval = await pendingApproval("twice", "x");
    await until(() => about(approval).length >= 3, "three messages");
    // Both nodes' feeds read the store several times over (pollMs 20) before this is counted.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await Promise.all([one.idle(), two.idle()]);
    const mine = about(approval);
    assert.deepEqual(mine.map((r) => r.service).sort(), ["slack", "teams", "telegram"], "each service once");
  } finally {
    await one.close();
    await two.close();
  }
});

test("Telegram's 429 retry_after is honoured before the next attempt; one longer than the bound is dead-lettered at once", async () => {
  fakes.received.length = 0;
  fakes.mode.telegram = { kind: "rate", retryAfter: 1 };
  const d = dispatcher([targets(["approval.requested"])[2]!]);
  try {
    const approval = await pendingApproval("limited", "x");
    await until(() => about(approval).length >= 1, "the first attempt");
    fakes.mode.telegram = { kind: "ok" };
    await until(() => about(approval).length >= 2, "the second attempt");
    await d.idle();
    const [first, second] = about(approval);
    assert.ok(second!.at - first!.at >= 900, `waited ${second!.at - first!.at} ms, as retry_after asked`);
    assert.ok(!(await d.deadLetters.list({ limit: 100 })).some((l) => l.payload.id === `evt_${approval.id}_requested`), "control: delivered on the second attempt");
  } finally {
    await d.close();
  }

  fakes.received.length = 0;
  fakes.mode.telegram = { kind: "rate", retryAfter: 3600 };
  const bounded = dispatcher([targets(["approval.requested"])[2]!], { maxRetryAfterMs: 5000 });
  try {
    const approval = await pendingApproval("limited-long", "x");
    await until(async () => (await deadLetter(bounded, approval)) !== undefined, "the dead letter");
    const letter = await deadLetter(bounded, approval);
    assert.ok(letter, "dead-lettered");
    assert.equal(letter.attempts, 1, "not retried: the wait asked is beyond the bound");
    assert.match(letter.lastError, /HTTP 429: Too Many Requests.*asked to wait 3600 s/);
  } finally {
    fakes.mode.telegram = { kind: "ok" };
    await bounded.close();
  }
});

test("failing services: 5xx and a hang are retried within bounds then dead-lettered; a 4xx is not retried; the dispatcher is never stuck", async () => {
  const cases: Array<{ service: "slack" | "teams" | "telegram"; mode: PushFakes["mode"]["slack"]; attempts: number; error: RegExp }> = [
    { service: "slack", mode: { kind: "status", status: 500 }, attempts: 3, error: /^HTTP 500$/ },
    { service: "teams", mode: { kind: "hold" }, attempts: 3, error: /time|abort/i },
    { service: "telegram", mode: { kind: "status", status: 502 }, attempts: 3, error: /^HTTP 502: Internal Server Error$/ },
    { service: "slack", mode: { kind: "status", status: 404 }, attempts: 1, error: /^HTTP 404$/ },
  ];
  for (const c of cases) {
    fakes.received.length = 0;
    fakes.mode[c.service] = c.mode;
    const index = { slack: 0, teams: 1, telegram: 2 }[c.service];
    const d = dispatcher([targets(["approval.requested"])[index]!], { timeoutMs: 300 });
    try {
      const approval = await pendingApproval(`failing-${c.service}-${c.attempts}`, "x");
      await until(async () => (await deadLetter(d, approval)) !== undefined, "the dead letter");
      fakes.release();
      assert.equal(about(approval).length, c.attempts, `${c.service}: attempts`);
      const letter = await deadLetter(d, approval);
      assert.ok(letter, `${c.service}: dead-lettered`);
      assert.equal(letter.attempts, c.attempts);
      assert.match(letter.lastError, c.error);
      assert.equal(letter.target, fakes.base, "the origin only: the path is the credential");
      const outcome = (await runtime.audit.query({ runId: approval.runId, limit: 1000 })).records.find((r) => r.hostCall?.proxy === "webhooks" && r.status === "error");
      assert.equal(outcome?.error?.code, "dead_lettered", "the failed delivery is audited");
    } finally {
      fakes.mode[c.service] = { kind: "ok" };
      await d.close();
    }
  }
});

test("two receivers on one origin failing the same event keep a dead letter each (two Slack channels, two chats of one bot)", async () => {
  fakes.mode.slack = { kind: "status", status: 500 };
  fakes.mode.telegram = { kind: "status", status: 500 };
  const d = dispatcher([
    { url: `${fakes.base}${SLACK_PATH}`, format: "slack", allow_loopback: true, events: ["approval.requested"] },
    { url: `${fakes.base}/services/T0001/B0002/another`, format: "slack", allow_loopback: true, events: ["approval.requested"] },
    { url: fakes.base, format: "telegram", bot_token: "tg-bot", chat_id: "1", allow_loopback: true, events: ["approval.requested"] },
    { url: fakes.base, format: "telegram", bot_token: "tg-bot", chat_id: "2", allow_loopback: true, events: ["approval.requested"] },
  ]);
  try {
    const approval = await pendingApproval("two-on-one-origin", "x");
    const letters = async () => (await d.deadLetters.list({ limit: 1000 })).filter((l) => l.payload.id === `evt_${approval.id}_requested`);
    await until(async () => (await letters()).length >= 4, "four dead letters");
    await d.idle();
    const found = await letters();
    assert.equal(new Set(found.map((l) => l.id)).size, 4, "one letter per receiver");
    assert.deepEqual(found.map((l) => l.lastError).sort(), ["HTTP 404", "HTTP 500", "HTTP 500: Internal Server Error", "HTTP 500: Internal Server Error"]);
    for (const l of found) assert.ok(!l.id.includes("B0002") && !l.id.includes(TOKEN), "the id names no path or token");
  } finally {
    fakes.mode.slack = { kind: "ok" };
    fakes.mode.telegram = { kind: "ok" };
    await d.close();
  }
});

test("a wrong bot token: a 401 dead letter (not retried) that, like the logs, never shows the token", async () => {
  await runtime.setSecret("tg-wrong", "999:wrong-token-value-abcdef");
  fakes.received.length = 0;
  fakes.bad.length = 0;
  logged = "";
  const wrong = dispatcher([{ url: fakes.base, format: "telegram", bot_token: "tg-wrong", chat_id: "42", allow_loopback: true, events: ["approval.requested"] }]);
  try {
    const approval = await pendingApproval("wrong-token", "x");
    await until(async () => (await deadLetter(wrong, approval)) !== undefined, "the dead letter");
    const letter = await deadLetter(wrong, approval);
    assert.ok(letter);
    assert.equal(letter.attempts, 1);
    assert.equal(letter.lastError, "HTTP 401: Unauthorized");
    assert.ok(!JSON.stringify(letter).includes("wrong-token-value"), "the dead letter never holds the token");
    assert.match(logged, /webhook dead-lettered/);
    assert.ok(!logged.includes("wrong-token-value") && !logged.includes(TOKEN), "nor does the log");
  } finally {
    await wrong.close();
  }
});

describe("push webhooks in clawhive.yaml: each refusal names its field, beside a control that loads", () => {
  const cases: Array<[name: string, entry: Record<string, unknown>, field: string | null]> = [
    ["control: telegram with token and chat", { format: "telegram", bot_token: "tg", chat_id: -100123 }, null],
    ["control: telegram to a channel name", { format: "telegram", bot_token: "tg", chat_id: "@clawhive_alerts" }, null],
    ["control: slack", { format: "slack", url: "https://hooks.slack.com/services/T/B/X" }, null],
    ["control: teams", { format: "teams", url: "https://example.webhook.office.com/webhookb2/x" }, null],
    ["telegram without a token", { format: "telegram", chat_id: 1 }, "bot_token"],
    ["telegram without a chat", { format: "telegram", bot_token: "tg" }, "chat_id"],
    ["a chat id that is neither a number nor @name", { format: "telegram", bot_token: "tg", chat_id: "1; drop" }, "chat_id"],
    ["a token given as a value, not a secret name", { format: "telegram", bot_token: "123:AAH-abc", chat_id: 1 }, "bot_token"],
    ["telegram to a loopback API without allow_loopback", { format: "telegram", bot_token: "tg", chat_id: 1, url: "http://127.0.0.1:9/" }, "url"],
    ["slack without a URL", { format: "slack" }, "url"],
    ["a chat on slack", { format: "slack", url: "https://hooks.slack.com/services/T/B/X", chat_id: 1 }, "chat_id"],
    ["a bot token on teams", { format: "teams", url: "https://example.webhook.office.com/x", bot_token: "tg" }, "bot_token"],
    ["an unknown format", { format: "discord", url: "https://discord.com/api/webhooks/x" }, "format"],
  ];
  for (const [name, entry, field] of cases) {
    test(name, () => {
      const parsed = v.safeParse(WebhookFileSchema, entry);
      if (field === null) {
        assert.ok(parsed.success, JSON.stringify(parsed.issues));
        const target = webhookTarget(parsed.output);
        if (entry.format === "telegram") assert.deepEqual([target.url, target.telegram?.chatId], [TELEGRAM_API, String(entry.chat_id)]);
        return;
      }
      assert.ok(!parsed.success, "refused");
      assert.deepEqual(parsed.issues.map((i) => v.getDotPath(i)), [field]);
    });
  }
});
