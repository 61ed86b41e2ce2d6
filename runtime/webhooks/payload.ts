/** The body every webhook delivery signs and sends. */
import type { WebhookEvent } from "./config.js";

export interface WebhookPayload {
  readonly id: string;
  readonly type: WebhookEvent;
  readonly created_at: string;
  readonly data: Record<string, unknown>;
}
