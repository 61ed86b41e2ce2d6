/**
 * Deliveries that failed every attempt, kept in the store for an operator (`GET
 * /v1/webhooks/dead-letters`). The receiver is kept as its origin only: an incoming-webhook
 * URL's path is often its credential (Slack's `/services/T…/B…/…`). Its id ends with a hash of
 * the whole target, so two receivers on one origin (two Slack channels, two Telegram chats of one
 * bot) keep a letter each for the same event.
 */
import { createHash } from "node:crypto";
import { applyMigrations, type Store } from "../store/index.js";
import { targetKey, type WebhookEvent, type WebhookTarget } from "./config.js";
import type { WebhookPayload } from "./payload.js";
import { webhookMigrations } from "./schema.js";

export interface DeadLetter {
  readonly id: string;
  readonly target: string;
  readonly event: WebhookEvent;
  readonly payload: WebhookPayload;
  readonly attempts: number;
  readonly lastError: string;
  readonly failedAt: number;
}

export class DeadLetters {
  readonly #store: Store;
  #ready: Promise<void> | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  async add(target: WebhookTarget, payload: WebhookPayload, attempts: number, lastError: string): Promise<void> {
    await this.#table();
    await this.#store.execute({
      sql: "INSERT OR REPLACE INTO webhook_dead_letters (id, target, event, payload, attempts, last_error, failed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      args: [`${payload.id}:${new URL(target.url).origin}#${createHash("sha256").update(targetKey(target)).digest("hex").slice(0, 16)}`, new URL(target.url).origin, payload.type, JSON.stringify(payload), attempts, lastError.slice(0, 1000), Date.now()],
    });
  }

  /** Newest first; `before` (a previous page's last) starts after it. */
  async list(options: { limit: number; before?: { failedAt: number; id: string } }): Promise<DeadLetter[]> {
    await this.#table();
    const where = options.before === undefined ? "" : "WHERE failed_at < ? OR (failed_at = ? AND id < ?)";
    const args = options.before === undefined ? [] : [options.before.failedAt, options.before.failedAt, options.before.id];
    const result = await this.#store.execute({ sql: `SELECT * FROM webhook_dead_letters ${where} ORDER BY failed_at DESC, id DESC LIMIT ?`, args: [...args, options.limit] });
    return result.rows.map((row) => ({
      id: String(row.id),
      target: String(row.target),
      event: String(row.event) as WebhookEvent,
      payload: JSON.parse(String(row.payload)) as WebhookPayload,
      attempts: Number(row.attempts),
      lastError: String(row.last_error),
      failedAt: Number(row.failed_at),
    }));
  }

  #table(): Promise<void> {
    return (this.#ready ??= applyMigrations(this.#store, webhookMigrations)
      .then(() => undefined)
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      }));
  }
}
