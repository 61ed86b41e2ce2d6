/**
 * Pushes approvals and run ends to people: signed webhooks (retried with backoff, then kept in a
 * dead-letter list the API shows) and the approvers' SSE stream. A delivery never runs on a
 * run's path: events are queued and sent in the background, so a receiver that hangs or answers
 * 500 costs a run nothing. `approval.requested` and `run.ended` come from the runs this node
 * drives; `approval.decided` and the stream come from the store (`ApprovalFeed`), so a decision
 * made anywhere — API, CLI, MCP, another node — is told, and sent once across the nodes.
 *
 * Push targets (Slack, Teams, Telegram) get both approval events from the store, claimed like
 * decisions: an approval asked for on any node reaches each chat once, rendered from the stored
 * approval (agent, tool, risk, key arguments) with a link to the console's decision page.
 * Every delivery that belongs to a run is audited: its intent before the first attempt (no
 * intent, no delivery), its outcome after the last.
 */
import { randomUUID } from "node:crypto";
import type { Resolver } from "../../host-proxies/http/index.js";
import { runtimeLogger, type Logger } from "../log/index.js";
import type { ApprovalStore } from "../policy/approvals/index.js";
import type { Run } from "../runs/run.js";
import type { Store } from "../store/index.js";
import type { AuditLog, AuditRecord } from "../audit/index.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../config/listen.js";
import type { Approval } from "../policy/approvals/index.js";
import { targetKey, type WebhookEvent, type WebhookTarget } from "./config.js";
import { approvalPayload, type WebhookPayload } from "./payload.js";
import { ApprovalFeed } from "./approval-feed.js";
import { judgeAnswer } from "./answer.js";
import { DeliveryClaims } from "./claims.js";
import { DeadLetters } from "./dead-letters.js";
import { postDelivery } from "./deliver.js";
import { pushSummary } from "./push-text.js";
import { signDelivery } from "./signature.js";
import { slackMessage, teamsMessage, telegramMessage, type PushEvent } from "./template.js";

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

/** The formats whose messages are rendered from the stored approval and sent from the store's feed. */
function isPush(target: WebhookTarget): boolean {
  return target.format !== "json";
}

/** Where push messages link when `console.public_url` is not set: the server's default listen URL. */
const DEFAULT_CONSOLE_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

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
    const fromFeed = options.targets.filter((t) => t.events.includes("approval.decided") || (isPush(t) && t.events.includes("approval.requested")));
    this.#offFeed =
      fromFeed.length === 0
        ? () => undefined
        : this.approvalFeed.subscribe((change) => {
            const targets = fromFeed.filter((t) => t.events.includes(change.type) && (change.type === "approval.decided" || isPush(t)));
            this.#sendClaimed(targets, approvalPayload(change.type, change.approval), change.approval);
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
    for (const target of this.#options.targets) {
      // A push target hears of approvals from the store, once across the nodes (see the constructor).
      if (!target.events.includes(type) || (type === "approval.requested" && isPush(target))) continue;
      this.#enqueue(target, () => this.#deliver(target, payload), payload);
    }
  }

  /** Sends `payload` to each target this node claims first (other nodes see the same event). */
  #sendClaimed(targets: readonly WebhookTarget[], payload: WebhookPayload, approval: Approval): void {
    for (const target of targets) {
      this.#enqueue(target, async () => {
        if (await this.#claims.claim(payload.id, targetKey(target), this.#now())) await this.#deliver(target, payload, approval);
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

  async #deliver(target: WebhookTarget, payload: WebhookPayload, approval?: Approval): Promise<void> {
    const attempts = this.#options.attempts ?? 5;
    const token = target.telegram === undefined ? undefined : await this.#options.secretValue(target.telegram.botToken);
    const body = JSON.stringify(this.#body(target, payload, approval));
    const secret = target.secret === undefined ? undefined : await this.#options.secretValue(target.secret);
    const url = token === undefined ? target.url : `${target.url}/bot${token}/sendMessage`;
    // The bot token is the URL's credential: no error text that might carry the URL keeps it.
    const scrub = (text: string) => (token === undefined ? text : text.split(token).join("<bot_token>"));
    const intent = await this.#intent(target, payload);
    if (intent === null) return;
    let lastError = "";
    let made = 0;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      made = attempt;
      const timestamp = Math.floor(this.#now() / 1000);
      const headers: Record<string, string> = {
        "x-clawhive-event": payload.type,
        "x-clawhive-delivery": payload.id,
        "x-clawhive-timestamp": String(timestamp),
        ...(secret === undefined ? {} : { "x-clawhive-signature": signDelivery(secret, timestamp, body) }),
      };
      let waitMs: number | undefined;
      try {
        const answer = await postDelivery({ url, allowLoopback: target.allowLoopback, headers, body, timeoutMs: this.#options.timeoutMs ?? 10_000, ...(this.#options.resolver === undefined ? {} : { resolver: this.#options.resolver }) });
        const verdict = judgeAnswer(answer, { format: target.format, now: this.#now(), maxRetryAfterMs: this.#options.maxRetryAfterMs ?? 60_000 });
        if (verdict.kind === "delivered") return await this.#outcome(intent, target, { attempts: attempt });
        lastError = scrub(verdict.error);
        if (verdict.kind === "permanent") break;
        waitMs = verdict.waitMs;
      } catch (error) {
        lastError = scrub(error instanceof Error ? error.message : String(error));
      }
      if (attempt === attempts || this.#stop.signal.aborted) break;
      await this.#wait(Math.max(waitMs ?? 0, (this.#options.baseDelayMs ?? 1000) * 2 ** (attempt - 1)));
    }
    this.#log().warn({ event: payload.id, type: payload.type, target: new URL(target.url).origin, format: target.format, error: lastError }, "webhook dead-lettered");
    await this.deadLetters.add(target, payload, made, lastError);
    await this.#outcome(intent, target, { attempts: made, error: lastError });
  }

  /** The message a target's format takes; a push message is rendered from the stored approval when there is one. */
  #body(target: WebhookTarget, payload: WebhookPayload, approval: Approval | undefined): unknown {
    if (target.format === "json") return payload;
    const event: PushEvent = { payload, ...(approval === undefined ? {} : { summary: pushSummary(approval, this.#options.consoleUrl ?? DEFAULT_CONSOLE_URL) }) };
    if (target.format === "slack") return slackMessage(event);
    if (target.format === "teams") return teamsMessage(event);
    return telegramMessage(event, target.telegram?.chatId ?? "");
  }

  /**
   * The delivery's intent, when it belongs to a run and an audit log is given; null when it could
   * not be written: then nothing is sent (fail closed) and the event is a dead letter.
   */
  async #intent(target: WebhookTarget, payload: WebhookPayload): Promise<AuditRecord | undefined | null> {
    const d = payload.data as { run_id?: unknown; trace_id?: unknown; agent?: unknown; approval?: { id?: unknown } };
    if (this.#options.audit === undefined || typeof d.run_id !== "string" || typeof d.trace_id !== "string") return undefined;
    try {
      return await this.#options.audit.appendIntent({
        kind: "host_call",
        traceId: d.trace_id,
        runId: d.run_id,
        agent: typeof d.agent === "string" ? d.agent : "",
        hostCall: { proxy: "webhooks", function: "deliver" },
        args: {
          event: payload.type,
          event_id: payload.id,
          format: target.format,
          target: new URL(target.url).origin,
          ...(target.telegram === undefined ? {} : { chat_id: target.telegram.chatId }),
          ...(typeof d.approval?.id === "string" ? { approval_id: d.approval.id } : {}),
        },
      });
    } catch (error) {
      this.#log().error({ err: error, event: payload.id }, "webhook not sent: its audit intent could not be written");
      await this.deadLetters.add(target, payload, 0, "not sent: the audit intent could not be written");
      return null;
    }
  }

  async #outcome(intent: AuditRecord | undefined, target: WebhookTarget, result: { attempts: number; error?: string }): Promise<void> {
    if (intent === undefined || this.#options.audit === undefined) return;
    await this.#options.audit
      .appendOutcome(intent, {
        status: result.error === undefined ? "ok" : "error",
        summary: { attempts: result.attempts, target: new URL(target.url).origin, ...(result.error === undefined ? {} : { dead_lettered: true }) },
        ...(result.error === undefined ? {} : { error: { code: "dead_lettered", message: result.error } }),
      })
      .catch((error: unknown) => this.#log().error({ err: error }, "webhook delivery outcome not audited"));
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
