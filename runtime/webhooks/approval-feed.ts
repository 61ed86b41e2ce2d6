/**
 * Approvals asked for and decided on every node sharing the store, told to this node's
 * listeners (the approvers' SSE stream, the `approval.decided` webhook). The approvals table is
 * the one place a decision is recorded — through the API, the CLI, an MCP elicitation or another
 * node — so the feed tails it rather than trusting each path to report.
 *
 * It polls while someone listens: each pass reads what changed since a window behind now
 * (`lagMs`, covering a write that commits late and clocks that differ between nodes) and tells
 * only what it has not told before.
 */
import { runtimeLogger, type Logger } from "../log/index.js";
import type { Approval, ApprovalStore } from "../policy/approvals/index.js";

export interface ApprovalChange {
  readonly type: "approval.requested" | "approval.decided";
  readonly approval: Approval;
}

export interface ApprovalFeedOptions {
  /** Between two reads of the store; default 1000 ms. */
  readonly pollMs?: number;
  /** How far behind now each read starts; default 5000 ms. */
  readonly lagMs?: number;
  readonly now?: () => number;
  readonly log?: () => Logger;
}

/** Rows one pass reads at most; more changes than this within `lagMs` are told on later passes. */
const PASS_ROWS = 1000;

export class ApprovalFeed {
  readonly #approvals: Pick<ApprovalStore, "changedSince">;
  readonly #options: ApprovalFeedOptions;
  readonly #listeners = new Set<(change: ApprovalChange) => void>();
  /** What was told, with the time it happened, kept while it is inside the window. */
  readonly #told = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  /** Bumped by `close`: a pass of an earlier round of listening schedules no next one. */
  #round = 0;
  #running = false;
  #pass: Promise<void> | undefined;

  constructor(approvals: Pick<ApprovalStore, "changedSince">, options: ApprovalFeedOptions = {}) {
    this.#approvals = approvals;
    this.#options = options;
  }

  /** Tells `listener` of every change from now on (and of the last `lagMs`); returns the unsubscribe. */
  subscribe(listener: (change: ApprovalChange) => void): () => void {
    this.#listeners.add(listener);
    if (!this.#running) {
      this.#running = true;
      this.#schedule(0, this.#round);
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.close();
    };
  }

  /** Reads the store now (e.g. right after a decision made here), rather than at the next tick. */
  poll(): Promise<void> {
    if (this.#pass !== undefined) return this.#pass;
    const pass = this.#read().finally(() => {
      if (this.#pass === pass) this.#pass = undefined;
    });
    this.#pass = pass;
    return pass;
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#running = false;
    this.#round++;
  }

  #schedule(ms: number, round: number): void {
    this.#timer = setTimeout(() => {
      void this.poll()
        .catch((error: unknown) => (this.#options.log ?? runtimeLogger)().warn({ err: error }, "approvals feed: the store could not be read; trying again"))
        .finally(() => {
          if (round === this.#round) this.#schedule(this.#options.pollMs ?? 1000, round);
        });
    }, ms);
    this.#timer.unref();
  }

  async #read(): Promise<void> {
    const since = (this.#options.now ?? Date.now)() - (this.#options.lagMs ?? 5000);
    const rows = await this.#approvals.changedSince(since, PASS_ROWS);
    for (const [key, at] of this.#told) if (at < since) this.#told.delete(key);
    for (const approval of rows) {
      this.#tell(`${approval.id}:requested`, approval.createdAt, since, { type: "approval.requested", approval });
      if (approval.decision !== null && approval.decidedAt !== null) this.#tell(`${approval.id}:decided`, approval.decidedAt, since, { type: "approval.decided", approval });
    }
  }

  #tell(key: string, at: number, since: number, change: ApprovalChange): void {
    if (at < since || this.#told.has(key)) return;
    this.#told.set(key, at);
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        (this.#options.log ?? runtimeLogger)().warn({ err: error }, "approvals feed: a listener failed");
      }
    }
  }
}
