/**
 * Pushes approvals and run ends to people: signed webhooks (retried with backoff, then kept in a
 * dead-letter list the API shows) and the approvers' SSE stream. A delivery never runs on a
 * run's path: events are queued and sent in the background, so a receiver that hangs or answers
 * 500 costs a run nothing. `approval.requested` and `run.ended` come from the runs this node
 * drives; `approval.decided` and the stream come from the store (`ApprovalFeed`), so a decision
 * made anywhere — API, CLI, MCP, another node — is told, and sent once across the nodes.
 */
import { randomUUID } from "node:crypto";
import type { Resolver } from "../../host-proxies/http/index.js";
import { runtimeLogger, type Logger } from "../log/index.js";
import type { ApprovalStore } from "../policy/approvals/index.js";
import type { Run } from "../runs/run.js";
import type { Store } from "../store/index.js";
import type { WebhookEvent, WebhookTarget } from "./config.js";
import { approvalPayload, type WebhookPayload } from "./payload.js";
import { ApprovalFeed } from "./approval-feed.js";
import { DeliveryClaims } from "./claims.js";
import { DeadLetters } from "./dead-letters.js";
import { postDelivery } from "./deliver.js";
import { signDelivery } from "./signature.js";
import { slackMessage } from "./template.js";

export type { WebhookPayload } from "./payload.js";

export interface WebhookDispatcherOptions {
  readonly targets: readonly WebhookTarget[];
  readonly store: Store;
  /** Where decisions are read from (every node's); the approvers' stream reads it too. */
  readonly approvals: Pick<ApprovalStore, "changedSince">;
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
  readonly resolver?: Resolver;
  readonly now?: () => number;
  readonly log?: Logger;
}

export class WebhookDispatcher {
  readonly deadLetters: DeadLetters;
  /** Approvals asked for and decided on every node sharing the store. */
  readonly approvalFeed: ApprovalFeed;
  readonly #claims: DeliveryClaims;
  readonly #offFeed: () => void;
  readonly #options: WebhookDispatcherOptions;
  readonly #listeners = new Set<(payload: WebhookPayload) => void>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(options: WebhookDispatcherOptions) {
    this.#options = options;
    this.deadLetters = new DeadLetters(options.store);
    this.#claims = new DeliveryClaims(options.store);
    this.approvalFeed = new ApprovalFeed(options.approvals, {
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
      log: () => this.#log(),
    });
    const decidedTargets = options.targets.filter((t) => t.events.includes("approval.decided"));
    this.#offFeed =
      decidedTargets.length === 0
        ? () => undefined
        : this.approvalFeed.subscribe((change) => {
            if (change.type === "approval.decided") this.#sendClaimed(decidedTargets, approvalPayload(change.type, change.approval));
          });
  }

  /** Follows a run: its approval requests and its end. */
  observe(run: Run): void {
    const off = run.onEvent((event) => {
      if (event.type === "approval-required") {
        const a = event.approval;
        this.emit("approval.requested", {
          run_id: run.id,
          trace_id: run.traceId,
          agent: run.agent.name,
          approval: { id: a.id, kind: a.kind, tool: a.tool, reason: a.reason, expires_at: new Date(a.expiresAt).toISOString() },
          ...(event.subAgentRunId === undefined ? {} : { sub_agent_run_id: event.subAgentRunId }),
        });
      } else if (event.type === "run-ended") {
        off();
        this.emit("run.ended", { run_id: run.id, trace_id: run.traceId, agent: run.agent.name, end_reason: event.reason ?? "completed" });
      }
    });
  }

  /** The approvers' stream: approvals asked for and decided on every node, as payloads; returns the unsubscribe. */
  streamApprovals(listener: (payload: WebhookPayload) => void): () => void {
    return this.approvalFeed.subscribe((change) => listener(approvalPayload(change.type, change.approval)));
  }

  /** Every event this node emits (its runs' requests and ends); returns the unsubscribe. */
  subscribe(listener: (payload: WebhookPayload) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(type: WebhookEvent, data: Record<string, unknown>): void {
    const payload: WebhookPayload = { id: `evt_${randomUUID()}`, type, created_at: new Date(this.#now()).toISOString(), data };
    for (const listener of this.#listeners) {
      try {
        listener(payload);
      } catch (error) {
        this.#log().warn({ err: error }, "webhook subscriber failed");
      }
    }
    for (const target of this.#options.targets) if (target.events.includes(type)) this.#enqueue(target, () => this.#deliver(target, payload), payload);
  }

  /** Sends `payload` to each target this node claims first (other nodes see the same event). */
  #sendClaimed(targets: readonly WebhookTarget[], payload: WebhookPayload): void {
    for (const target of targets) {
      this.#enqueue(target, async () => {
        if (await this.#claims.claim(payload.id, target.url, this.#now())) await this.#deliver(target, payload);
      }, payload);
    }
  }

  #enqueue(target: WebhookTarget, work: () => Promise<void>, payload: WebhookPayload): void {
    if (this.#inFlight.size >= (this.#options.maxQueued ?? 1000)) {
      void this.deadLetters.add(target, payload, 0, "queue full: too many deliveries waiting").catch((error: unknown) => this.#log().error({ err: error }, "dead letter not stored"));
      return;
    }
    const delivery = work().catch((error: unknown) => this.#log().error({ err: error, event: payload.id }, "webhook delivery failed"));
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
  }

  /** Stops retrying (what is left is dead-lettered) and waits for the attempts in flight. */
  async close(): Promise<void> {
    this.#offFeed();
    this.approvalFeed.close();
    this.#stop.abort();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Waits until every delivery queued so far has succeeded or been dead-lettered. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async #deliver(target: WebhookTarget, payload: WebhookPayload): Promise<void> {
    const attempts = this.#options.attempts ?? 5;
    const body = JSON.stringify(target.format === "slack" ? slackMessage(payload) : payload);
    const secret = target.secret === undefined ? undefined : await this.#options.secretValue(target.secret);
    let lastError = "";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const timestamp = Math.floor(this.#now() / 1000);
      const headers: Record<string, string> = {
        "x-clawhive-event": payload.type,
        "x-clawhive-delivery": payload.id,
        "x-clawhive-timestamp": String(timestamp),
        ...(secret === undefined ? {} : { "x-clawhive-signature": signDelivery(secret, timestamp, body) }),
      };
      try {
        const status = await postDelivery({ url: target.url, allowLoopback: target.allowLoopback, headers, body, timeoutMs: this.#options.timeoutMs ?? 10_000, ...(this.#options.resolver === undefined ? {} : { resolver: this.#options.resolver }) });
        if (status >= 200 && status < 300) return;
        lastError = `HTTP ${status}`;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
      if (attempt === attempts || this.#stop.signal.aborted) break;
      await this.#wait((this.#options.baseDelayMs ?? 1000) * 2 ** (attempt - 1));
    }
    this.#log().warn({ event: payload.id, type: payload.type, target: new URL(target.url).origin, error: lastError }, "webhook dead-lettered");
    await this.deadLetters.add(target, payload, attempts, lastError);
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.#stop.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #log(): Logger {
    return this.#options.log ?? runtimeLogger();
  }
}
