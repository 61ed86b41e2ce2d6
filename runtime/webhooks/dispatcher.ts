/**
 * Pushes approvals and run ends to people: signed webhooks (retried with backoff, then kept in a
 * dead-letter list the API shows) and in-process subscribers (the approvers' SSE stream). A
 * delivery never runs on a run's path: events are queued and sent in the background, so a
 * receiver that hangs or answers 500 costs a run nothing.
 */
import { randomUUID } from "node:crypto";
import type { Resolver } from "../../host-proxies/http/index.js";
import { runtimeLogger, type Logger } from "../log/index.js";
import type { Approval } from "../policy/approvals/index.js";
import type { Run } from "../runs/run.js";
import type { Store } from "../store/index.js";
import type { WebhookEvent, WebhookTarget } from "./config.js";
import type { WebhookPayload } from "./payload.js";
import { DeadLetters } from "./dead-letters.js";
import { postDelivery } from "./deliver.js";
import { signDelivery } from "./signature.js";
import { slackMessage } from "./template.js";

export type { WebhookPayload } from "./payload.js";

export interface WebhookDispatcherOptions {
  readonly targets: readonly WebhookTarget[];
  readonly store: Store;
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
  readonly #options: WebhookDispatcherOptions;
  readonly #listeners = new Set<(payload: WebhookPayload) => void>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(options: WebhookDispatcherOptions) {
    this.#options = options;
    this.deadLetters = new DeadLetters(options.store);
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

  approvalDecided(approval: Approval): void {
    this.emit("approval.decided", {
      run_id: approval.runId,
      trace_id: approval.traceId,
      agent: approval.agent,
      approval: { id: approval.id, kind: approval.kind, tool: approval.tool, decision: approval.decision, scope: approval.scope, by: approval.decidedBy },
    });
  }

  /** Every event as it happens on this node (the approvers' stream); returns the unsubscribe. */
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
    for (const target of this.#options.targets) {
      if (!target.events.includes(type)) continue;
      if (this.#inFlight.size >= (this.#options.maxQueued ?? 1000)) {
        void this.deadLetters.add(target, payload, 0, "queue full: too many deliveries waiting").catch((error: unknown) => this.#log().error({ err: error }, "dead letter not stored"));
        continue;
      }
      const delivery = this.#deliver(target, payload).catch((error: unknown) => this.#log().error({ err: error, event: payload.id }, "webhook delivery failed"));
      this.#inFlight.add(delivery);
      void delivery.finally(() => this.#inFlight.delete(delivery));
    }
  }

  /** Stops retrying (what is left is dead-lettered) and waits for the attempts in flight. */
  async close(): Promise<void> {
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
