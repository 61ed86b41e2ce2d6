import { ClawhiveError } from "../errors.js";
import { failureOf, stopOnAuditFailure, storeFailedAfter } from "./errors.js";
import type { RunDriverOptions } from "./driver-options.js";
import { interruptedEffects } from "./takeover.js";
import type { PlannedCall, RunRecord } from "./records.js";
import type { Run } from "./run.js";
export type { RunDriverOptions } from "./driver-options.js";

/**
 * A run this node recorded a moment ago and drives at once: its plan and task as written, no
 * outcome yet. `marked`: its row's transaction also wrote the journal mark of its first ToolCall
 * (`plan:0`, since its creation: every effect of that ToolCall comes after it).
 */
export interface FreshPlan {
  plan: PlannedCall[];
  task: string | null;
  marked: boolean;
}

/** Waits between attempts to record a run's failure (ms): about 1.5 s before the tick takes over. */
const RECORD_RETRY_MS = [50, 200, 1200];

/**
 * Errors opening a run that no retry can mend: its agent is unknown to this node, its task's
 * grant no longer fits, its chain of parents is broken. The run is ended `failed` with the code.
 */
const PERMANENT = new Set(["agent_unknown", "invalid_input", "not_found", "run_chain_too_deep"]);


/**
 * Drives runs submitted with a plan of explicit ToolCalls: runs them in order, stops when one
 * needs a person, continues once the approval is decided (on this node, or on another when
 * this one dies: leases in the store say who drives a run), and honours cancellation asked for
 * on any node. A tick renews this node's leases, picks up decided approvals and cancellations.
 */
export class RunDriver {
  readonly #options: RunDriverOptions;
  #driving = new Map<string, Promise<void>>();
  /** Runs ended here whose end the store refused: each tick writes them again. */
  #unrecorded = new Map<string, Run>();
  /** Runs being opened to be continued (see `continue`). */
  #continuing = new Map<string, Promise<boolean>>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;

  constructor(options: RunDriverOptions) {
    this.#options = options;
  }

  /** Starts the background tick (lease renewal, decided approvals, cancellations). */
  start(): void {
    const every = Math.max(50, Math.min(1000, Math.floor(this.#options.leaseMs / 3)));
    this.#timer = setInterval(() => {
      this.#ticking ??= this.tick()
        .catch((error: unknown) => this.#options.onError?.(error, "*"))
        .finally(() => (this.#ticking = undefined));
    }, every);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
    await Promise.allSettled(this.#driving.values());
  }

  /**
   * Drives `run` from where its record stands until it ends or waits; one drive per run at a time.
   * `fresh`: the run was recorded by this node just now with this plan (see FreshPlan), so its
   * record is not read back.
   */
  drive(run: Run, options: { fresh?: FreshPlan } = {}): Promise<void> {
    const current = this.#driving.get(run.id);
    if (current) return current.then(() => this.drive(run));
    const driving: Promise<void> = this.#drive(run, options.fresh)
      .then(
        () => this.#settle(run, undefined),
        (error: unknown) => this.#settle(run, error),
      )
      .finally(() => {
        if (this.#driving.get(run.id) === driving) this.#driving.delete(run.id);
      });
    this.#driving.set(run.id, driving);
    return driving;
  }

  /**
   * Runs `work` as the run's one driver: drives and ticks wait for it, and it waits for a drive
   * already under way. For a caller that replays the run's ToolCalls itself.
   */
  hold<T>(id: string, work: () => Promise<T>): Promise<T> {
    const held = (this.#driving.get(id) ?? Promise.resolve()).then(work);
    const marker: Promise<void> = held.then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      if (this.#driving.get(id) === marker) this.#driving.delete(id);
    });
    this.#driving.set(id, marker);
    return held;
  }

  /**
   * Continues run `id` if this node may drive it now (it holds or can take its lease). One at a
   * time per run: two ticks (the timer's and a caller's) finding the same orphan must not open
   * two Run objects for it, the later one driving from a state the earlier has moved past.
   */
  continue(id: string): Promise<boolean> {
    const under = this.#continuing.get(id);
    if (under) return under;
    const continuing = this.#continue(id).finally(() => this.#continuing.delete(id));
    this.#continuing.set(id, continuing);
    return continuing;
  }

  async #continue(id: string): Promise<boolean> {
    const record = await this.#options.records.get(id);
    if (!record || !(await this.#options.claim(id, { node: record.node, leaseUntil: record.leaseUntil }))) return false;
    let run: Run;
    try {
      run = await this.#options.open(id);
    } catch (error) {
      // Nothing here could ever continue it: it ends failed, saying why, rather than staying
      // held by a node that cannot drive it.
      if (error instanceof ClawhiveError && PERMANENT.has(error.code)) await this.#options.abandon(id, { reason: "failed", ...failureOf(error) });
      throw error;
    }
    await this.drive(run);
    return true;
  }

  /** Asks for run `id` to be cancelled: at once when this node drives it, else by its driver's next tick. */
  async cancel(id: string): Promise<boolean> {
    const asked = await this.#options.records.requestCancel(id);
    for (const run of this.#options.live()) if (run.id === id) await this.#cancelLive(run);
    return asked;
  }

  /** One round of background work; public so tests can step it. */
  async tick(): Promise<void> {
    const { records, node, now, leaseMs } = this.#options;
    const live = [...this.#options.live()].filter((r) => !r.ended);
    const ids = live.map((r) => r.id);
    await records.renew(node, ids, now() + leaseMs);
    for (const run of [...this.#unrecorded.values()]) {
      await run.end().then(
        () => this.#unrecorded.delete(run.id),
        (error: unknown) => this.#options.onError?.(error, run.id),
      );
    }
    for (const id of await records.cancelRequested(ids)) {
      const run = live.find((r) => r.id === id);
      if (run) await this.#cancelLive(run).catch((error: unknown) => this.#options.onError?.(error, id));
    }
    // Runs a node left active when it died, closed or lost the store (its lease ran out) are
    // taken over: continued here from their last durable point (see the Step journal). One
    // cancelled meanwhile ends; one no node here can open ends failed, saying why (`continue`).
    for (const left of this.#options.adoptOrphans === false ? [] : await records.orphans(node)) {
      if (this.#driving.has(left.id) || this.#continuing.has(left.id) || this.#unrecorded.has(left.id) || live.some((r) => r.id === left.id)) continue;
      const free = left.node === null || (left.leaseUntil ?? 0) < now() || this.#options.holderGone?.(left.node) === true;
      if (!free) continue;
      if (left.cancelRequested || !left.drivable) {
        // Nothing could continue a run without a plan or loop state: it ends, saying why, rather
        // than stay active with no node that can drive it.
        const end = left.cancelRequested
          ? { reason: "cancelled" as const, code: "cancelled", message: "it was cancelled while no node drove it" }
          : { reason: "failed" as const, code: "node_stopped", message: "its node stopped and nothing another node could continue from was recorded (no plan, no model loop state)" };
        await this.#options.abandon(left.id, end).catch((error: unknown) => this.#options.onError?.(error, left.id));
        continue;
      }
      // Not awaited: one slow run must not hold up the tick (lease renewal above all).
      void this.continue(left.id).catch((error: unknown) => this.#options.onError?.(error, left.id));
    }
    for (const waiting of this.#options.continueDecided === false ? [] : await records.decidedWaiting()) {
      if (this.#driving.has(waiting.id) || this.#continuing.has(waiting.id)) continue;
      // Another live node's run is for that node to continue.
      if (waiting.node !== null && waiting.node !== node && (waiting.leaseUntil ?? 0) >= now() && !(await this.#options.claim(waiting.id, waiting))) continue;
      await this.continue(waiting.id).catch((error: unknown) => this.#options.onError?.(error, waiting.id));
    }
  }

  /** Cancels a run of this node; an end the store refused is written again by the tick. */
  async #cancelLive(run: Run): Promise<void> {
    try {
      await run.cancel();
    } catch (error) {
      if (run.endUnrecorded) this.#unrecorded.set(run.id, run);
      throw error;
    }
  }

  /**
   * The one outer guard of a drive: whatever escaped it (a store that is busy or failing, an
   * audit write, a serialisation, a bug) ends the run `failed` with the error's code, retried a
   * few times. If the store refuses even that, the run is ended here (nothing further starts),
   * the tick keeps writing its end, and the caller is told whether effects were already made.
   */
  async #settle(run: Run, error: unknown): Promise<void> {
    // Another node holds the run now (this node's lease ran out): it is that node's to end.
    if (error instanceof ClawhiveError && error.code === "run_taken_over") return;
    if (error === undefined && !run.endUnrecorded) return;
    if (error !== undefined && run.ended && !run.endUnrecorded) return;
    if (error !== undefined) this.#options.onError?.(error, run.id);
    let last: unknown = error;
    for (const wait of [0, ...RECORD_RETRY_MS]) {
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        await (run.ended ? run.end() : run.fail(failureOf(error)));
        return;
      } catch (failure) {
        last = failure;
      }
    }
    this.#unrecorded.set(run.id, run);
    throw storeFailedAfter(run, last);
  }

  async #drive(run: Run, fresh: FreshPlan | undefined): Promise<void> {
    const { records } = this.#options;
    const record: Pick<RunRecord, "status" | "plan" | "outcomes" | "planNext" | "task"> | undefined = fresh === undefined
      ? await records.get(run.id)
      : { status: "active", plan: fresh.plan, outcomes: [], planNext: 0, task: fresh.task };
    if (!record || record.status === "ended" || run.ended) return;
    const loop = this.#options.loop;
    if (!record.plan && loop && (await loop.owns(run.id))) return loop.drive(run);
    const plan = record.plan ?? [];
    const outcomes = [...record.outcomes];
    let next = record.planNext;
    if (run.status === "awaiting_approval") {
      const outcome = await run.resume();
      if (!outcome || outcome.status === "approval_required") return;
      outcomes.push(outcome);
      next++;
      stopOnAuditFailure(outcome);
    }
    if (!record.plan) return;
    const journal = this.#options.journal;
    // A fresh run has no stored outcome; after each progress write this drive knows how many
    // are (after one that failed it does not, and they are counted again).
    let stored: number | undefined = fresh === undefined ? undefined : 0;
    const progress = async (at: number) => {
      const known = stored;
      stored = undefined;
      await records.planProgress(run.id, at, outcomes, this.#options.node, known === undefined ? {} : { stored: known });
      if (known !== undefined) stored = outcomes.length;
    };
    try {
      // A fresh run's journal was written with its row: no node has started any of its work.
      if (journal !== undefined && fresh === undefined && run.status === "active" && next < plan.length) {
        const halted = await this.#interrupted(run, journal, next, plan[next]!);
        if (halted !== undefined) {
          if (halted.status === "approval_required") return;
          outcomes.push(halted);
          next++;
        }
      }
      for (; next < plan.length; next++) {
        if (run.cancelled || run.ended) return;
        const call = plan[next]!;
        // The Step journal: this ToolCall's start, then (below) its outcome, each durable.
        if (!(fresh?.marked === true && next === 0)) await journal?.store.mark(run.id, { position: `plan:${next}`, since: this.#options.now(), node: this.#options.node });
        const outcome = await run.callTool(call.name, call.input, { ...(record.task ? { context: record.task } : {}), ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }) });
        if (outcome.status === "approval_required") return;
        outcomes.push(outcome);
        stopOnAuditFailure(outcome);
        if (journal !== undefined && next + 1 < plan.length) await progress(next + 1);
      }
    } finally {
      // Where the plan stands, for a pause, an end or a failure alike.
      await progress(next);
    }
    if (!run.ended) await run.end("completed");
  }

  /**
   * A plan continued at `next` whose journal says its last node started that very ToolCall: it
   * runs again only if it had begun no effect (undefined); else it pauses for a person.
   */
  async #interrupted(run: Run, journal: NonNullable<RunDriverOptions["journal"]>, next: number, call: { name: string; input: unknown }) {
    const entry = await journal.store.get(run.id);
    if (entry === undefined || entry.position !== `plan:${next}`) return undefined;
    const reason = await interruptedEffects(journal.audit, run.id, { ...entry, by: this.#options.node });
    if (reason === undefined) return undefined;
    return run.pauseInterrupted(call.name, call.input, { stepId: `plan_${next}`, reason });
  }
}
