/**
 * Pushes approvals and run ends to people: signed webhooks (retried with backoff, then kept in a
 * dead-letter list the API shows) and the approvers' SSE stream. A delivery never runs on a
 * run's path: events are queued and sent in the background, so a receiver that hangs or answers
 * 500 costs a run nothing. `approval.requested` and `run.ended` come from the runs this node
 * drives; `approval.decided` and the stream come from the store (`ApprovalFeed`), so a decision
 * made anywhere — API, CLI, MCP, another node — is told, and sent once across the nodes.
 *
 * Push targets (Slack, Teams, Telegram) get both approval events from the store, owed like
 * decisions in the shared outbox: an approval asked for on any node — or by a `clawhive run`
 * while no server ran (caught up when a dispatcher starts) — reaches each chat once, rendered from
 * the stored approval (agent, tool, risk, key arguments) with a link to the console's decision page.
 * Every delivery that belongs to a run is audited: its intent before the first attempt (no
 * intent, no delivery), its outcome after the last.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { runtimeLogger, type Logger } from "../log/index.js";
import type { Run } from "../runs/run.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../config/listen.js";
import type { Approval } from "../policy/approvals/index.js";
import { isPush, targetKey, type WebhookEvent, type WebhookTarget } from "./config.js";
import { approvalPayload, seenFields, type WebhookPayload } from "./payload.js";
import { ApprovalFeed } from "./approval-feed.js";
import { judgeAnswer } from "./answer.js";
import { deliveryIntent, deliveryOutcome, type AuditSinks } from "./delivery-audit.js";
import type { WebhookDispatcherOptions } from "./options.js";
import { DeliveryOutbox, type Owed, type OwedPush } from "./outbox.js";
import { DeadLetters } from "./dead-letters.js";
import { postDelivery } from "./deliver.js";
import { pushSummary } from "./push-text.js";
import { signDelivery } from "./signature.js";
import { slackMessage, teamsMessage, telegramMessage, type PushEvent } from "./template.js";

export type { WebhookPayload } from "./payload.js";
export type { WebhookDispatcherOptions } from "./options.js";



/** Where push messages link when `console.public_url` is not set: the server's default listen URL. */
const DEFAULT_CONSOLE_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

export class WebhookDispatcher {
  readonly deadLetters: DeadLetters;
  /** Approvals asked for and decided on every node sharing the store. */
  readonly approvalFeed: ApprovalFeed;
  readonly #outbox: DeliveryOutbox;
  #sweepTimer: NodeJS.Timeout | undefined;
  readonly #offFeed: () => void;
  readonly #options: WebhookDispatcherOptions;
  readonly #listeners = new Set<(payload: WebhookPayload) => void>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(options: WebhookDispatcherOptions) {
    this.#options = options;
    this.deadLetters = new DeadLetters(options.store);
    this.#outbox = new DeliveryOutbox(options.store, options.node ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`);
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
            this.#sendClaimed(targets, approvalPayload(change.type, change.approval, options.consoleUrl), change.approval);
          });
    if (fromFeed.length > 0) {
      this.#track(this.#catchUp(fromFeed));
      this.#scheduleSweep(fromFeed);
    }
  }

  /**
   * Follows a run: its approval requests (with the stored approval's risk, read first) and its
   * end, told in the order they happened.
   */
  observe(run: Run): void {
    let told = Promise.resolve();
    const off = run.onEvent((event) => {
      if (event.type === "approval-required") {
        const a = event.approval;
        const risk = this.#options.approvals.get(a.id).then((stored) => stored?.risk, () => undefined);
        told = told.then(async () => this.emit("approval.requested", {
          run_id: run.id,
          trace_id: run.traceId,
          agent: run.agent.name,
          approval: { id: a.id, kind: a.kind, tool: a.tool, reason: a.reason, expires_at: new Date(a.expiresAt).toISOString(), ...seenFields(a.id, await risk, this.#options.consoleUrl) },
          ...(event.subAgentRunId === undefined ? {} : { sub_agent_run_id: event.subAgentRunId }),
        }));
      } else if (event.type === "run-ended") {
        off();
        told = told.then(() => this.emit("run.ended", { run_id: run.id, trace_id: run.traceId, agent: run.agent.name, end_reason: event.reason ?? "completed" }));
      }
    });
  }

  /** The approvers' stream: approvals asked for and decided on every node, as payloads; returns the unsubscribe. */
  streamApprovals(listener: (payload: WebhookPayload) => void): () => void {
    return this.approvalFeed.subscribe((change) => listener(approvalPayload(change.type, change.approval, this.#options.consoleUrl)));
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

  /**
   * Owes `payload` to each target in the shared outbox, then sends it under the row's lease:
   * other nodes see the same event and add the same row, and only the lease holder sends it.
   */
  #sendClaimed(targets: readonly WebhookTarget[], payload: WebhookPayload, approval: Approval): void {
    for (const target of targets) {
      this.#enqueue(target, async () => {
        const owed = { eventId: payload.id, approvalId: approval.id, type: payload.type as OwedPush["type"], targetKey: targetKey(target) };
        await this.#outbox.add(owed, this.#now());
        await this.#deliver(target, payload, approval, this.#owed(owed.targetKey, payload.id, 0));
      }, payload);
    }
  }

  /** What was asked (still pending) or decided while no node pushed it: owed now (the outbox drops repeats). */
  async #catchUp(targets: readonly WebhookTarget[]): Promise<void> {
    const found = await this.#options.approvals.changedSince(this.#now() - (this.#options.catchUpMs ?? 3_600_000), 1000);
    for (const a of found) {
      const asked = targets.filter((t) => isPush(t) && t.events.includes("approval.requested"));
      if (a.status === "pending") this.#sendClaimed(asked, approvalPayload("approval.requested", a, this.#options.consoleUrl), a);
      const told = targets.filter((t) => t.events.includes("approval.decided"));
      if (a.decision !== null) this.#sendClaimed(told, approvalPayload("approval.decided", a, this.#options.consoleUrl), a);
    }
  }

  /** Takes over owed pushes whose node stopped before finishing them (their lease lapsed). */
  #scheduleSweep(targets: readonly WebhookTarget[]): void {
    this.#sweepTimer = setTimeout(() => {
      const sweep = this.#sweep(targets).catch((error: unknown) => this.#log().warn({ err: error }, "webhook outbox: could not be read; trying again"));
      this.#track(sweep.finally(() => {
        if (!this.#stop.signal.aborted) this.#scheduleSweep(targets);
      }));
    }, this.#options.sweepMs ?? 5000);
    this.#sweepTimer.unref();
  }

  async #sweep(targets: readonly WebhookTarget[]): Promise<void> {
    for (const target of targets) {
      const key = targetKey(target);
      for (const owed of await this.#outbox.orphans(key, this.#now(), 100)) {
        const approval = await this.#options.approvals.get(owed.approvalId);
        if (approval === undefined) continue;
        const payload = approvalPayload(owed.type, approval, this.#options.consoleUrl);
        this.#enqueue(target, () => this.#deliver(target, payload, approval, this.#owed(key, owed.eventId, owed.attempts)), payload);
      }
    }
  }

  /** The outbox row's lease, renewed before each attempt; long enough for one attempt and the wait after it. */
  #owed(key: string, eventId: string, done: number): Owed {
    const wait = Math.max(this.#options.maxRetryAfterMs ?? 60_000, (this.#options.baseDelayMs ?? 1000) * 2 ** (this.#options.attempts ?? 5));
    const leaseMs = (this.#options.timeoutMs ?? 10_000) + wait + 5000;
    return {
      done,
      lease: (renew) => this.#outbox.lease(eventId, key, { now: this.#now(), leaseMs, renew }),
      finish: (state) => this.#outbox.finish(eventId, key, state, this.#now()),
    };
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.#log().error({ err: error }, "webhook outbox work failed"));
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
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
    clearTimeout(this.#sweepTimer);
    this.#stop.abort();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Waits until every delivery queued so far has succeeded or been dead-lettered. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** `owed`: an outbox row, sent only while this node holds its lease and ended with the delivery. */
  async #deliver(target: WebhookTarget, payload: WebhookPayload, approval?: Approval, owed?: Owed): Promise<void> {
    if (owed !== undefined && !(await owed.lease(false))) return;
    const attempts = this.#options.attempts ?? 5;
    const token = target.telegram === undefined ? undefined : await this.#options.secretValue(target.telegram.botToken);
    const body = JSON.stringify(this.#body(target, payload, approval));
    const secret = target.secret === undefined ? undefined : await this.#options.secretValue(target.secret);
    const url = token === undefined ? target.url : `${target.url}/bot${token}/sendMessage`;
    // The bot token is the URL's credential: no error text that might carry the URL keeps it.
    const scrub = (text: string) => (token === undefined ? text : text.split(token).join("<bot_token>"));
    const intent = await deliveryIntent(this.#auditSinks(), target, payload);
    if (intent === null) return await owed?.finish("failed");
    let lastError = "every attempt was taken by nodes that stopped before finishing";
    let made = owed?.done ?? 0;
    for (let attempt = made + 1; attempt <= attempts; attempt++) {
      // Renewed before each later attempt; lost (another node took over after a stall): stop here.
      if (owed !== undefined && attempt > made + 1 && !(await owed.lease(true))) return;
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
        if (verdict.kind === "delivered") {
          await owed?.finish("sent");
          return await deliveryOutcome(this.#auditSinks(), intent, target, { attempts: attempt });
        }
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
    await owed?.finish("failed");
    await deliveryOutcome(this.#auditSinks(), intent, target, { attempts: made, error: lastError });
  }

  /** The message a target's format takes; a push message is rendered from the stored approval when there is one. */
  #body(target: WebhookTarget, payload: WebhookPayload, approval: Approval | undefined): unknown {
    if (target.format === "json") return payload;
    const event: PushEvent = { payload, ...(approval === undefined ? {} : { summary: pushSummary(approval, this.#options.consoleUrl ?? DEFAULT_CONSOLE_URL) }) };
    if (target.format === "slack") return slackMessage(event);
    if (target.format === "teams") return teamsMessage(event);
    return telegramMessage(event, target.telegram?.chatId ?? "");
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

  #auditSinks(): AuditSinks {
    return { ...(this.#options.audit === undefined ? {} : { audit: this.#options.audit }), deadLetters: this.deadLetters, log: this.#log() };
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #log(): Logger {
    return this.#options.log ?? runtimeLogger();
  }
}
