/**
 * `webhooks:` in clawhive.yaml: where approvals and run ends are pushed. A URL is checked at
 * start with the http proxy's address rules: https, or http only to a loopback or private
 * address that `allow_loopback: true` allows explicitly; no credentials in it; an IP literal
 * that is not public needs `allow_loopback`. Names are vetted again at each delivery, after DNS
 * (the same pinning as the http proxy: no rebinding between check and connect).
 */
import * as v from "valibot";
import { classifyAddress } from "../../host-proxies/http/index.js";

export const WEBHOOK_EVENTS = ["approval.requested", "approval.decided", "run.ended"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const SECRET_NAME = v.pipe(v.string("expected the name of a stored secret"), v.regex(/^[a-z][a-z0-9_-]{0,62}$/, "expected the name of a stored secret: lowercase letters, digits, '_' or '-'"));

export const WebhookFileSchema = v.pipe(
  v.strictObject({
    url: v.pipe(v.string("expected the receiver's URL"), v.maxLength(2048, "expected a URL of at most 2048 characters"), v.check((s) => urlProblem(s, true) === undefined, "expected an absolute http(s) URL without credentials")),
    secret: v.optional(SECRET_NAME),
    events: v.optional(v.pipe(v.array(v.picklist(WEBHOOK_EVENTS, `expected one of ${WEBHOOK_EVENTS.join(", ")}`)), v.minLength(1, "expected at least one event"))),
    format: v.optional(v.picklist(["json", "slack"], "expected json (signed JSON) or slack (a Slack/Teams incoming-webhook message)")),
    allow_loopback: v.optional(v.boolean("expected true or false")),
  }),
  v.forward(
    v.check((hook) => urlProblem(hook.url, hook.allow_loopback === true) === undefined, "expected an https URL; http, a loopback or a private address only with allow_loopback: true"),
    ["url"],
  ),
);
export type WebhookFileEntry = v.InferOutput<typeof WebhookFileSchema>;

export interface WebhookTarget {
  readonly url: string;
  /** The stored secret whose value signs the deliveries (HMAC-SHA256). */
  readonly secret: string | undefined;
  readonly events: readonly WebhookEvent[];
  readonly format: "json" | "slack";
  readonly allowLoopback: boolean;
}

export function webhookTarget(entry: WebhookFileEntry): WebhookTarget {
  return { url: entry.url, secret: entry.secret, events: entry.events ?? [...WEBHOOK_EVENTS], format: entry.format ?? "json", allowLoopback: entry.allow_loopback === true };
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
