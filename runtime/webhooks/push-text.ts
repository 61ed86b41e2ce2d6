/**
 * What a push message says of an approval, and how a value from a model or a tool is written
 * into each service's markup so that it is only ever shown, never obeyed.
 *
 * Every value is first made inert (controls and bidi/invisible characters shown as escapes,
 * CVE-2021-42574) and cut to a bound, then written into the service's literal context:
 * - Slack mrkdwn: `&`, `<`, `>` escaped (what Slack's message formatting requires: `<!channel>`,
 *   `<@U…>`, `<http://x|y>` are written with them) inside an inline code span, where Slack
 *   neither formats, links nor mentions; a backtick in the value would close the span, so it is
 *   shown as `ˋ` (U+02CB).
 * - Teams: a `TextRun` of an Adaptive Card's `RichTextBlock`, which renders no markdown (Adaptive
 *   Cards 1.2); a mention needs an `msteams.entities` entry, which we never write.
 * - Telegram HTML (`parse_mode: HTML`): `&`, `<`, `>` escaped inside `<code>`, where Telegram
 *   detects no links, mentions, hashtags or commands.
 * URLs inside values are defanged (`http[:]//`) as well, for clients that link text on their own.
 */
import type { JsonValue } from "../audit/json.js";
import type { Approval } from "../policy/approvals/index.js";
import { inert } from "../text/inert.js";

/** Characters one shown value keeps at most. */
export const VALUE_CHARS = 200;
/** Arguments one message shows at most; the rest are counted. */
export const SHOWN_ARGUMENTS = 6;

export interface PushArgument {
  readonly name: string;
  readonly value: string;
}

/** An approval as a push message shows it; every string already inert and bounded. */
export interface PushSummary {
  readonly id: string;
  readonly agent: string;
  readonly tool: string;
  readonly risk: string;
  readonly reason: string;
  /** The effect's capability (`shell.exec`) for an effect approval. */
  readonly capability: string | null;
  readonly arguments: readonly PushArgument[];
  /** Arguments not shown. */
  readonly more: number;
  readonly expiresAt: string;
  readonly decision: { readonly decision: string; readonly by: string } | null;
  /** The console's decision page: opening it needs a signed-in approver; it decides nothing. */
  readonly link: string;
}

/** `text` inert, on one line, defanged and at most `max` characters (an ellipsis says it was cut). */
export function shown(text: string, max = VALUE_CHARS): string {
  const one = inert(text, { newlines: false }).replace(/:\/\//g, "[:]//");
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

function valueText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? "null";
}

/** The arguments a person decides on: an effect's canonical host-call arguments, else the ToolCall's. */
function keyArguments(value: JsonValue | null): { shown: PushArgument[]; more: number } {
  if (value === null) return { shown: [], more: 0 };
  const entries: Array<[string, JsonValue]> = typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [["input", value]];
  return {
    shown: entries.slice(0, SHOWN_ARGUMENTS).map(([name, item]) => ({ name: shown(name, 60), value: shown(valueText(item)) })),
    more: Math.max(0, entries.length - SHOWN_ARGUMENTS),
  };
}

export function pushSummary(approval: Approval, consoleUrl: string): PushSummary {
  const args = keyArguments(approval.effect ?? approval.input);
  return {
    id: shown(approval.id, 80),
    agent: shown(approval.agent, 80),
    tool: shown(approval.tool, 120),
    risk: shown(approval.risk, 20),
    reason: shown(approval.reason, 300),
    capability: approval.capability === null ? null : shown(approval.capability, 80),
    arguments: args.shown,
    more: args.more,
    expiresAt: new Date(approval.expiresAt).toISOString(),
    decision: approval.decision === null ? null : { decision: approval.decision, by: shown(approval.decidedBy ?? "", 80) },
    link: approvalLink(consoleUrl, approval.id),
  };
}

/** `${console.public_url}/approvals/:id`; the id is percent-encoded, so it stays one path segment. */
export function approvalLink(consoleUrl: string, id: string): string {
  return `${consoleUrl.replace(/\/+$/, "")}/approvals/${encodeURIComponent(id)}`;
}

/** An inert value as Slack mrkdwn: an inline code span Slack neither formats, links nor mentions in. */
export function slackCode(text: string): string {
  return `\`${text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/`/g, "\u02cb")}\``;
}

/** An inert value as Telegram HTML: a `<code>` entity, where nothing is detected as a link or mention. */
export function telegramCode(text: string): string {
  return `<code>${text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</code>`;
}
