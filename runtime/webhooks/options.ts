import type { Resolver } from "../../host-proxies/http/index.js";
import type { AuditLog } from "../audit/index.js";
import type { Logger } from "../log/index.js";
import type { ApprovalStore } from "../policy/approvals/index.js";
import type { Store } from "../store/index.js";
import type { WebhookTarget } from "./config.js";

/** What a `WebhookDispatcher` is built from. */
export interface WebhookDispatcherOptions {
  readonly targets: readonly WebhookTarget[];
  readonly store: Store;
  /** Where decisions are read from (every node's); the approvers' stream reads it too. */
  readonly approvals: Pick<ApprovalStore, "changedSince" | "get">;
  /** How far back a dispatcher starting looks for approvals no node pushed (none ran); default 1 h. */
  readonly catchUpMs?: number;
  /** How often the outbox is read for pushes a node left unfinished (it died); default 5 s. */
  readonly sweepMs?: number;
  /** This node's name on its outbox leases; default host:pid:random. */
  readonly node?: string;
  /** How often the store is read for approvals while someone listens; default 1000 ms. */
  readonly pollMs?: number;
  readonly secretValue: (name: string) => Promise<string>;
  /** Attempts per delivery before it is dead-lettered; default 5. */
  readonly attempts?: number;
  /** The wait before the second attempt, doubled each time; default 1000 ms. */
  readonly baseDelayMs?: number;
  /** Deadline of one attempt (connect, send, answer); default 10 s. */
  readonly timeoutMs?: number;
  /** Deliveries waiting or in flight beyond which new ones are dead-lettered at once; default 1000. */
  readonly maxQueued?: number;
  /** The longest wait a 429's `Retry-After` / `retry_after` is honoured for; default 60 s. */
  readonly maxRetryAfterMs?: number;
  /** `console.public_url`: push messages link to `<it>/approvals/:id`; default the server's default listen URL. */
  readonly consoleUrl?: string;
  /** Where deliveries of a run's events are recorded; none in tests that do not look. */
  readonly audit?: Pick<AuditLog, "appendIntent" | "appendOutcome">;
  readonly resolver?: Resolver;
  readonly now?: () => number;
  readonly log?: Logger;
}
