/**
 * One delivery of an event to a target across every node sharing the store: every node's feed
 * sees the same approval decided, and only the node whose claim is stored first sends it. A
 * target is kept as a hash of its URL (its path is often its credential). Claims older than a
 * day are forgotten: no feed looks that far back.
 */
import { createHash } from "node:crypto";
import { applyMigrations, type Store } from "../store/index.js";
import { webhookMigrations } from "./schema.js";

const KEEP_MS = 24 * 60 * 60 * 1000;

export class DeliveryClaims {
  readonly #store: Store;
  #ready: Promise<void> | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  /** True when this call claimed (`eventId`, `url`); false when some node already had. */
  async claim(eventId: string, url: string, now: number): Promise<boolean> {
    await (this.#ready ??= applyMigrations(this.#store, webhookMigrations).then(() => undefined, (error: unknown) => {
      this.#ready = undefined;
      throw error;
    }));
    await this.#store.execute({ sql: "DELETE FROM webhook_claims WHERE claimed_at < ?", args: [now - KEEP_MS] });
    const target = createHash("sha256").update(url).digest("hex");
    const inserted = await this.#store.execute({
      sql: "INSERT INTO webhook_claims (event_id, target, claimed_at) VALUES (?, ?, ?) ON CONFLICT (event_id, target) DO NOTHING",
      args: [eventId, target, now],
    });
    return inserted.rowsAffected === 1;
  }
}
