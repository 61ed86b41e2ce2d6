/**
 * `webhooks:` in clawhive.yaml: where approvals and run ends are pushed. A URL is checked at
 * start with the http proxy's address rules: https, or http only to a loopback or private
 * address that `allow_loopback: true` allows explicitly; no credentials in it; an IP literal
 * that is not public needs `allow_loopback`. Names are vetted again at each delivery, after DNS
 * (the same pinning as the http proxy: no rebinding between check and connect).
 *
 * Formats: `json` (the signed payload), `slack` and `teams` (an incoming-webhook message: Slack's
 * `{text, blocks}`, an Adaptive Card for Teams), `telegram` (a bot's `sendMessage` to `chat_id`;
 * `url` is the Bot API's base, default https://api.telegram.org, and `bot_token` the stored
 * secret holding the bot's token: it is the path's credential, so it never sits in the file).
 */
import * as v from "valibot";
import { classifyAddress } from "../../host-proxies/http/index.js";

export const WEBHOOK_EVENTS = ["approval.requested", "approval.decided", "run.ended"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const SECRET_NAME = v.pipe(v.string("expected the name of a stored secret"), v.regex(/^[a-z][a-z0-9_-]{0,62}$/, "expected the name of a stored secret: lowercase letters, digits, '_' or '-'"));

export const WEBHOOK_FORMATS = ["json", "slack", "teams", "telegram"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Telegram's Bot API, where `format: telegram` sends unless `url` names another base. */
export const TELEGRAM_API = "https://api.telegram.org";

/** A chat's numeric id (negative for groups) or a public channel's `@username`. */
const CHAT_ID = v.pipe(
  v.union([v.pipe(v.number(), v.integer()), v.string()], "expected a chat id: a number, or @channelname"),
  v.transform(String),
  v.regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, "expected a chat id: a number, or @channelname"),
);

export const WebhookFileSchema = v.pipe(
  v.strictObject({
    url: v.optional(v.pipe(v.string("expected the receiver's URL"), v.maxLength(2048, "expected a URL of at most 2048 characters"), v.check((s) => urlProblem(s, true) === undefined, "expected an absolute http(s) URL without credentials"))),
    secret: v.optional(SECRET_NAME),
    events: v.optional(v.pipe(v.array(v.picklist(WEBHOOK_EVENTS, `expected one of ${WEBHOOK_EVENTS.join(", ")}`)), v.minLength(1, "expected at least one event"))),
    format: v.optional(v.picklist(WEBHOOK_FORMATS, "expected json (signed JSON), slack, teams or telegram")),
    bot_token: v.optional(SECRET_NAME),
    chat_id: v.optional(CHAT_ID),
    allow_loopback: v.optional(v.boolean("expected true or false")),
  }),
  v.forward(
    v.check((hook) => hook.url !== undefined || hook.format === "telegram", "expected the receiver's URL"),
    ["url"],
  ),
  v.forward(
    v.check((hook) => urlProblem(hook.url ?? TELEGRAM_API, hook.allow_loopback === true) === undefined, "expected an https URL; http, a loopback or a private address only with allow_loopback: true"),
    ["url"],
  ),
  v.forward(v.check((hook) => hook.format !== "telegram" || hook.bot_token !== undefined, "expected the name of the stored secret holding the bot's token (format: telegram)"), ["bot_token"]),
  v.forward(v.check((hook) => hook.format !== "telegram" || hook.chat_id !== undefined, "expected the chat to send to (format: telegram)"), ["chat_id"]),
  v.forward(v.check((hook) => hook.format === "telegram" || hook.bot_token === undefined, "only with format: telegram"), ["bot_token"]),
  v.forward(v.check((hook) => hook.format === "telegram" || hook.chat_id === undefined, "only with format: telegram"), ["chat_id"]),
);
export type WebhookFileEntry = v.InferOutput<typeof WebhookFileSchema>;

export interface WebhookTarget {
  readonly url: string;
  /** The stored secret whose value signs the deliveries (HMAC-SHA256). */
  readonly secret: string | undefined;
  readonly events: readonly WebhookEvent[];
  readonly format: WebhookFormat;
  readonly allowLoopback: boolean;
  /** Telegram: the stored secret holding the bot's token, and the chat sent to. */
  readonly telegram?: { readonly botToken: string; readonly chatId: string };
}

export function webhookTarget(entry: WebhookFileEntry): WebhookTarget {
  const format = entry.format ?? "json";
  return {
    url: format === "telegram" ? (entry.url ?? TELEGRAM_API).replace(/\/+$/, "") : (entry.url ?? ""),
    secret: entry.secret,
    events: entry.events ?? [...WEBHOOK_EVENTS],
    format,
    allowLoopback: entry.allow_loopback === true,
    ...(format === "telegram" && entry.bot_token !== undefined && entry.chat_id !== undefined ? { telegram: { botToken: entry.bot_token, chatId: entry.chat_id } } : {}),
  };
}

/** Who a target reaches, for claims: one Telegram bot API serves many chats. */
export function targetKey(target: WebhookTarget): string {
  return target.telegram === undefined ? target.url : `${target.url}#chat=${target.telegram.chatId}`;
}

/** Why `text` is not a URL deliveries may go to, or undefined. */
export function urlProblem(text: string, allowLoopback: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "not an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `scheme ${url.protocol} (expected https)`;
  if (url.username !== "" || url.password !== "") return "credentials in the URL";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = classifyAddress(host);
  const local = host === "localhost" || host.endsWith(".localhost") || (literal !== undefined && literal.kind !== "public");
  if (local && !allowLoopback) return `${host} is not a public address`;
  if (url.protocol === "http:" && !(local && allowLoopback)) return "http (expected https)";
  return undefined;
}

/** The formats whose messages are rendered from the stored approval and sent from the store's feed. */
export function isPush(target: WebhookTarget): boolean {
  return target.format !== "json";
}
