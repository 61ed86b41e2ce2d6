/**
 * The approval pushes still owed, in the store every node shares: one row per approval event per
 * target (the target kept as a hash of its URL: its path is often its credential). A row is
 * added by whichever node sees the approval first — its feed, or its catch-up on start, which
 * finds what was asked while no server ran — and delivered by the node that holds its lease. The
 * lease is renewed before each attempt; a node that dies mid-delivery lets it lapse and another
 * node takes the row over. `sent` and `failed` rows are never sent again; they are forgotten
 * after a week, longer than any catch-up looks back.
 */
import { createHash } from "node:crypto";
import { applyMigrations, type Store } from "../store/index.js";
import { webhookMigrations } from "./schema.js";

const KEEP_MS = 7 * 24 * 60 * 60 * 1000;

export interface OwedPush {
  readonly eventId: string;
  readonly target: string;
  readonly approvalId: string;
  readonly type: "approval.requested" | "approval.decided";
  readonly attempts: number;
}

/** An outbox row being delivered: the attempts nodes already made, its lease, its end. */
export interface Owed {
  readonly done: number;
  lease(renew: boolean): Promise<boolean>;
  finish(state: "sent" | "failed"): Promise<void>;
}

export class DeliveryOutbox {
  readonly #store: Store;
  readonly #node: string;
  #ready: Promise<void> | undefined;

  /** `node`: this process's name on the leases it takes. */
  constructor(store: Store, node: string) {
    this.#store = store;
    this.#node = node;
  }

  /** Records that (`eventId`, `target`) is owed; a row already there (any state) is kept as it is. */
  async add(push: Omit<OwedPush, "attempts" | "target"> & { readonly targetKey: string }, now: number): Promise<void> {
    await this.#table();
    await this.#store.execute({
      sql: "INSERT INTO webhook_outbox (event_id, target, approval_id, type, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?) ON CONFLICT (event_id, target) DO NOTHING",
      args: [push.eventId, hash(push.targetKey), push.approvalId, push.type, now],
    });
  }

  /**
   * Takes the lease on a pending row no live lease holds (`renew`: extends this node's own),
   * until `now + leaseMs`, counting the attempt it is taken for; false when the row is done or
   * another node holds it.
   */
  async lease(eventId: string, targetKey: string, options: { now: number; leaseMs: number; renew: boolean }): Promise<boolean> {
    await this.#table();
    const holder = options.renew ? "lease_by = ?" : "(lease_until IS NULL OR lease_until <= ?)";
    const taken = await this.#store.execute({
      sql: `UPDATE webhook_outbox SET lease_by = ?, lease_until = ?, attempts = attempts + 1 WHERE event_id = ? AND target = ? AND state = 'pending' AND ${holder}`,
      args: [this.#node, options.now + options.leaseMs, eventId, hash(targetKey), options.renew ? this.#node : options.now],
    });
    return taken.rowsAffected === 1;
  }

  /** Ends a row this node holds: `sent`, or `failed` once every attempt failed. */
  async finish(eventId: string, targetKey: string, state: "sent" | "failed", now: number): Promise<void> {
    await this.#store.execute({
      sql: "UPDATE webhook_outbox SET state = ?, done_at = ?, lease_until = NULL WHERE event_id = ? AND target = ? AND lease_by = ? AND state = 'pending'",
      args: [state, now, eventId, hash(targetKey), this.#node],
    });
  }

  /** Pending rows of `targetKey` no live lease holds (never taken, or their node died), oldest first. */
  async orphans(targetKey: string, now: number, limit: number): Promise<OwedPush[]> {
    await this.#table();
    await this.#store.execute({ sql: "DELETE FROM webhook_outbox WHERE state <> 'pending' AND done_at < ?", args: [now - KEEP_MS] });
    const result = await this.#store.execute({
      sql: "SELECT * FROM webhook_outbox WHERE target = ? AND state = 'pending' AND (lease_until IS NULL OR lease_until <= ?) ORDER BY created_at LIMIT ?",
      args: [hash(targetKey), now, limit],
    });
    return result.rows.map((row) => ({
      eventId: String(row.event_id),
      target: String(row.target),
      approvalId: String(row.approval_id),
      type: String(row.type) as OwedPush["type"],
      attempts: Number(row.attempts),
    }));
  }

  #table(): Promise<void> {
    return (this.#ready ??= applyMigrations(this.#store, webhookMigrations).then(() => undefined, (error: unknown) => {
      this.#ready = undefined;
      throw error;
    }));
  }
}

function hash(targetKey: string): string {
  return createHash("sha256").update(targetKey).digest("hex");
}
