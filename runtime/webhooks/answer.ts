/**
 * What a receiver's answer means for a delivery: delivered, worth another attempt (after a wait
 * the receiver may name), or refused for good.
 *
 * - 2xx delivers; Telegram also says so in its body (`{ok:true,result:{message_id…}}`), and an
 *   `ok:false` there is a failure whatever the status.
 * - 429 asks to wait: `Retry-After` (seconds; Slack, Teams) or Telegram's
 *   `parameters.retry_after`. The wait is honoured up to a bound; a service asking for longer
 *   than the bound is dead-lettered at once rather than hold a delivery for hours.
 * - 408 and 5xx are retried with the dispatcher's backoff; any other 4xx is permanent (a wrong
 *   URL, a revoked webhook, a chat the bot is not in): retrying cannot fix it.
 */
import type { WebhookFormat } from "./config.js";
import type { DeliveryAnswer } from "./deliver.js";
import { shown } from "./push-text.js";

export type AnswerVerdict =
  | { readonly kind: "delivered" }
  | { readonly kind: "retry"; readonly error: string; readonly waitMs?: number }
  | { readonly kind: "permanent"; readonly error: string };

interface TelegramAnswer {
  ok?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
}

function telegramAnswer(body: string): TelegramAnswer | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === "object" ? (parsed as TelegramAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/** `Retry-After` as seconds (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), in ms. */
function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  if (/^\d{1,9}$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function judgeAnswer(answer: DeliveryAnswer, options: { format: WebhookFormat; now: number; maxRetryAfterMs: number }): AnswerVerdict {
  const telegram = options.format === "telegram" ? telegramAnswer(answer.body) : undefined;
  const said = typeof telegram?.description === "string" ? `: ${shown(telegram.description, 200)}` : "";
  const error = `HTTP ${answer.status}${said}`;
  if (answer.status >= 200 && answer.status < 300) {
    if (options.format !== "telegram" || telegram?.ok === true) return { kind: "delivered" };
    return { kind: "retry", error: `HTTP ${answer.status}: the answer is not {ok:true}${said}` };
  }
  if (answer.status === 429) {
    const asked = typeof telegram?.parameters?.retry_after === "number" ? telegram.parameters.retry_after * 1000 : retryAfterMs(answer.retryAfter, options.now);
    if (asked !== undefined && asked > options.maxRetryAfterMs) return { kind: "permanent", error: `${error} (asked to wait ${Math.ceil(asked / 1000)} s, more than the ${Math.ceil(options.maxRetryAfterMs / 1000)} s allowed)` };
    return { kind: "retry", error, ...(asked === undefined ? {} : { waitMs: asked }) };
  }
  if (answer.status === 408 || answer.status >= 500) return { kind: "retry", error };
  return { kind: "permanent", error };
}
