/**
 * What a model or a tool put in an approval's arguments is shown in a push message, never
 * obeyed: per format (Slack mrkdwn, a Teams Adaptive Card, Telegram HTML), each hostile value —
 * a mention, a link, markup, a control or bidi character, a newline forging a line — beside a
 * control value that is shown exactly as it is.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Approval } from "../../runtime/policy/approvals/index.js";
import { approvalLink, pushSummary, slackMessage, teamsMessage, telegramMessage, type PushEvent } from "../../runtime/webhooks/index.js";

function approval(value: string): Approval {
  return {
    id: "apr_0123",
    kind: "tool_call",
    status: "pending",
    scope: null,
    runId: "run_1",
    traceId: "trace",
    agent: "mailer",
    parentRunId: null,
    stepId: "step_1",
    toolCallId: "tc_1",
    tool: "mail.send",
    input: { to: value },
    argsHash: "h",
    capability: null,
    effect: null,
    effectHash: null,
    risk: "guarded",
    reason: "mail.send is guarded",
    context: null,
    createdAt: 0,
    expiresAt: 3_600_000,
    decision: null,
    decidedBy: null,
    decidedAt: null,
    decisionReason: null,
    usedAt: null,
    useCount: 0,
    untrustedSources: [],
    secretsRead: [],
  };
}

function event(value: string): PushEvent {
  return { payload: { id: "evt_apr_0123_requested", type: "approval.requested", created_at: "", data: { run_id: "run_1", agent: "mailer" } }, summary: pushSummary(approval(value), "https://console.example") };
}

/** [what, the value, how it must read once shown]; controls read exactly as they are. */
const ROWS: Array<[name: string, value: string, shown: string]> = [
  ["control: plain words", "hello world", "hello world"],
  ["control: an address", "alice@corp.example", "alice@corp.example"],
  ["control: punctuation", "a-b_c (1) #2", "a-b_c (1) #2"],
  ["Slack broadcast mention", "<!channel> <!here|here>", "<!channel> <!here|here>"],
  ["bare mentions", "@everyone @channel @here", "@everyone @channel @here"],
  ["Slack user mention", "<@U0123ABC>", "<@U0123ABC>"],
  ["markdown link", "[x](http://evil.example)", "[x](http[:]//evil.example)"],
  ["Slack link", "<https://evil.example|click here>", "<https[:]//evil.example|click here>"],
  ["HTML link", '<a href="http://evil.example">x</a>', '<a href="http[:]//evil.example">x</a>'],
  ["Teams mention", "<at>Everyone</at>", "<at>Everyone</at>"],
  ["markup", "*bold* _it_ ~s~ `code` **b**", "*bold* _it_ ~s~ `code` **b**"],
  ["entity", "&lt;!channel&gt; &amp;", "&lt;!channel&gt; &amp;"],
  ["terminal control", "ok\u001b[2J\u0007", "ok\\u{1b}[2J\\u{7}"],
  ["bidi override", "invoice\u202egpj.exe\u202c", "invoice\\u{202e}gpj.exe\\u{202c}"],
  ["zero-width", "ad\u200bmin\ufeff", "ad\\u{200b}min\\u{feff}"],
  ["forged line", "x\n*Decided by:* boss", "x\\u{a}*Decided by:* boss"],
];

const FORBIDDEN = [/<!/, /<@/, /<https?:/, /https?:\/\/evil/, /\u001b/, /\u202e/, /\u200b/, /\n\*Decided/];

describe("Slack: every value in one code span of a verbatim mrkdwn line", () => {
  for (const [name, value, shown] of ROWS) {
    test(name, () => {
      const message = slackMessage(event(value));
      const section = message.blocks[1] as { text: { type: string; text: string; verbatim: boolean } };
      assert.equal(section.text.verbatim, true);
      const lines = section.text.text.split("\n");
      for (const line of lines) assert.match(line, /^\*[A-Za-z ]+:\* `[^`\n]*`$/, "a label and one code span, nothing else");
      const line = lines.find((l) => l.startsWith("*Argument to:*"));
      assert.ok(line);
      const unescaped = line.slice("*Argument to:* `".length, -1).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
      // A backtick would close the code span: Slack shows it as U+02CB.
      assert.equal(unescaped, shown.replace(/`/g, "\u02cb"));
      const text = JSON.stringify(message);
      for (const bad of FORBIDDEN) assert.doesNotMatch(text.replace(/\\u001b/g, "\u001b").replace(/\\n/g, "\n"), bad);
    });
  }
});

describe("Teams: every value a TextRun (no markdown), no mention entity, no TextBlock", () => {
  for (const [name, value, shown] of ROWS) {
    test(name, () => {
      const message = teamsMessage(event(value));
      const card = (message.attachments[0] as { content: { body: Array<{ type: string; inlines: Array<{ type: string; text: string }> }> } }).content;
      const text = JSON.stringify(message);
      assert.ok(!text.includes(`"type":"TextBlock"`) && !text.includes("msteams"), "no markdown block, no mention entity");
      for (const block of card.body) {
        assert.equal(block.type, "RichTextBlock");
        for (const inline of block.inlines) assert.equal(inline.type, "TextRun");
      }
      const row = card.body.find((b) => b.inlines[0]?.text === "Argument to: ");
      assert.equal(row?.inlines[1]?.text, shown);
      for (const bad of [/https?:\/\/evil/, /\u001b/, /\u202e/, /\u200b/]) assert.doesNotMatch(text, bad);
    });
  }
});

describe("Telegram HTML: every value in <code>, no other tag than ours", () => {
  for (const [name, value, shown] of ROWS) {
    test(name, () => {
      const message = telegramMessage(event(value), "-100");
      const text = String(message.text);
      const lines = text.split("\n");
      assert.match(lines[0]!, /^<b>[^<>]+<\/b>$/);
      for (const line of lines.slice(1)) assert.match(line, /^<b>[A-Za-z ]+:<\/b> <code>[^<>]*<\/code>$/, "a label and one code entity");
      assert.doesNotMatch(text.replace(/<\/?(b|code)>/g, ""), /[<>]/, "no tag but <b> and <code>");
      const line = lines.find((l) => l.startsWith("<b>Argument to:</b>"));
      assert.ok(line);
      const unescaped = line.slice("<b>Argument to:</b> <code>".length, -"</code>".length).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
      assert.equal(unescaped, shown);
      for (const bad of [/https?:\/\/evil/, /\u001b/, /\u202e/, /\u200b/]) assert.doesNotMatch(text, bad);
    });
  }
});

test("a long value is cut to a bound, the cut said; control: a short one is whole", () => {
  const long = pushSummary(approval("x".repeat(5000)), "https://c.example").arguments[0]!.value;
  assert.equal(long.length, 200);
  assert.ok(long.endsWith("…"));
  assert.equal(pushSummary(approval("short"), "https://c.example").arguments[0]!.value, "short");
});

test("the console link is one path segment per id, and only the console's own page", () => {
  assert.equal(approvalLink("https://c.example/base/", "apr_1"), "https://c.example/base/approvals/apr_1");
  assert.equal(approvalLink("https://c.example", "../../v1/approvals/apr_1?decision=approve"), "https://c.example/approvals/..%2F..%2Fv1%2Fapprovals%2Fapr_1%3Fdecision%3Dapprove");
});
