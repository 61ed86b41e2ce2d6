/**
 * The messages of Slack's and Teams' incoming webhooks and of a Telegram bot: what a person can
 * act on, and a link to the console's decision page. The link only opens that page, where the
 * approver signs in; no message carries anything that decides by being clicked.
 *
 * Text from models and tools is written through `push-text.ts`, so it cannot forge a link, a
 * mention or markup in any of the three.
 */
import type { WebhookPayload } from "./payload.js";
import { adaptiveCardMessage } from "../../host-proxies/message/format.js";
import { shown, slackCode, telegramCode, type PushSummary } from "./push-text.js";

/** What a message is made from: the event and, for an approval event, the approval's summary. */
export interface PushEvent {
  readonly payload: WebhookPayload;
  readonly summary?: PushSummary;
}

function field(data: Record<string, unknown>, name: string): string {
  const value = data[name];
  return shown(typeof value === "string" ? value : JSON.stringify(value ?? ""), 120);
}

function headline(event: PushEvent): string {
  const s = event.summary;
  const d = event.payload.data;
  switch (event.payload.type) {
    case "approval.requested":
      return "Approval needed";
    case "approval.decided":
      return s?.decision?.decision === "approve" ? "Approval granted" : "Approval denied";
    case "run.ended":
      return `Run ended: ${field(d, "end_reason")}`;
  }
}

/** Lines of label and value (the value inert), shared by the three formats. */
function facts(event: PushEvent): Array<[label: string, value: string]> {
  const s = event.summary;
  if (s === undefined) {
    const d = event.payload.data;
    return [
      ["Agent", field(d, "agent")],
      ["Run", field(d, "run_id")],
    ];
  }
  return [
    ["Agent", s.agent],
    ["Tool", s.tool],
    ["Risk", s.risk],
    ...(s.capability === null ? [] : [["Effect", s.capability] as [string, string]]),
    ...s.arguments.map((a) => [`Argument ${a.name}`, a.value] as [string, string]),
    ...(s.more === 0 ? [] : [["More arguments", String(s.more)] as [string, string]]),
    ["Reason", s.reason],
    ...(s.decision === null ? [["Expires", s.expiresAt] as [string, string]] : [["Decided by", s.decision.by] as [string, string]]),
    ["Approval", s.id],
  ];
}

const OPEN = "Open in the console";

/**
 * Slack: `text` is the notification's fallback, `blocks` the message. Every value sits in a
 * code span and every mrkdwn object is `verbatim`, so Slack turns nothing in it into a link or a
 * mention. The button only opens the URL (incoming webhooks have no interactivity).
 */
export function slackMessage(event: PushEvent): { text: string; blocks: unknown[] } {
  const s = event.summary;
  const text = s === undefined ? `clawhive: ${headline(event)}: agent ${slackCode(field(event.payload.data, "agent"))}` : `clawhive: ${headline(event)}: ${slackCode(s.tool)} for agent ${slackCode(s.agent)} (risk ${slackCode(s.risk)})`;
  const lines = facts(event).map(([label, value]) => `*${label}:* ${slackCode(value)}`);
  return {
    text,
    blocks: [
      { type: "header", text: { type: "plain_text", text: `clawhive: ${headline(event)}`, emoji: false } },
      { type: "section", text: { type: "mrkdwn", text: lines.join("\n"), verbatim: true } },
      ...(s === undefined ? [] : [{ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: OPEN, emoji: false }, url: s.link, action_id: "open_approval" }] }]),
    ],
  };
}

/**
 * Teams: a message with one Adaptive Card (what Teams' incoming webhooks and Workflows take).
 * Every text is a `TextRun`, which Adaptive Cards render without markdown (a `TextBlock` would
 * render `[x](http://evil)` as a link).
 */
export function teamsMessage(event: PushEvent): { type: "message"; attachments: unknown[] } {
  const s = event.summary;
  const body = [
    { type: "RichTextBlock", inlines: [{ type: "TextRun", text: `clawhive: ${headline(event)}`, weight: "Bolder", size: "Medium" }] },
    ...facts(event).map(([label, value]) => ({
      type: "RichTextBlock",
      inlines: [
        { type: "TextRun", text: `${label}: `, weight: "Bolder" },
        { type: "TextRun", text: value, fontType: "Monospace" },
      ],
    })),
  ];
  return adaptiveCardMessage(body, s === undefined ? undefined : [{ type: "Action.OpenUrl", title: OPEN, url: s.link }]);
}

/** Telegram `sendMessage`: HTML with every value in `<code>`, and a URL button to the console. */
export function telegramMessage(event: PushEvent, chatId: string): Record<string, unknown> {
  const s = event.summary;
  const lines = [`<b>clawhive: ${headline(event).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</b>`, ...facts(event).map(([label, value]) => `<b>${label}:</b> ${telegramCode(value)}`)];
  return {
    chat_id: chatId,
    text: lines.join("\n"),
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(s === undefined ? {} : { reply_markup: { inline_keyboard: [[{ text: OPEN, url: s.link }]] } }),
  };
}
