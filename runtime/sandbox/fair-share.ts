/**
 * Fair share of the worker pool. A worker runs one guest call at a time and a guest cannot be
 * interrupted short of its deadline, so a run (or an agent's runs) whose calls spin would hold
 * every worker, and every other run's call would wait for those deadlines. Each run and each
 * agent may therefore hold at most a set number of calls in the workers (running or queued
 * there); a call over that waits here, holding no worker, and the calls a run may have waiting
 * are capped too, so a runaway cannot queue without end.
 */
import { SandboxError } from "../errors.js";

export interface FairShareLimits {
  /** Calls one run may hold in the workers at once. */
  perRun: number;
  /** Calls the runs of one agent may hold in the workers at once. */
  perAgent: number;
  /** Calls one run may have waiting for its share; one more is refused. */
  queuedPerRun: number;
}

/** Who a call counts against: its run (the binding's label) and its agent, when known. */
export interface Holder {
  run: string;
  agent?: string | undefined;
}

interface Waiter {
  holder: Holder;
  admit: () => void;
}

export class FairShare {
  readonly limits: FairShareLimits;
  #held = new Map<string, number>();
  #waiting: Waiter[] = [];

  constructor(limits: FairShareLimits) {
    this.limits = limits;
  }

  /**
   * A share of the workers: the function that gives it back (call it once), at once when the
   * holder is under its caps (the common case costs no await), else a promise of it.
   */
  admit(holder: Holder): (() => void) | Promise<() => void> {
    if (this.#fits(holder)) {
      this.#take(holder);
      return this.#releaser(holder);
    }
    return this.#wait(holder);
  }

  async #wait(holder: Holder): Promise<() => void> {
    const queued = this.#waiting.filter((w) => w.holder.run === holder.run).length;
    if (queued >= this.limits.queuedPerRun) {
      throw new SandboxError(
        "too_many_calls",
        `run ${holder.run} already has ${queued} guest calls waiting for a worker (at most ${this.limits.queuedPerRun}); wait for them to finish`,
      );
    }
    // Whoever wakes this waiter has counted it already.
    await new Promise<void>((resolve) => this.#waiting.push({ holder, admit: resolve }));
    return this.#releaser(holder);
  }

  #releaser(holder: Holder): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#give(holder);
      this.#wake();
    };
  }

  /** Calls `holder`'s run holds now (for tests and stats). */
  heldBy(run: string): number {
    return this.#held.get(`run:${run}`) ?? 0;
  }

  #fits(holder: Holder): boolean {
    if ((this.#held.get(`run:${holder.run}`) ?? 0) >= this.limits.perRun) return false;
    return holder.agent === undefined || (this.#held.get(`agent:${holder.agent}`) ?? 0) < this.limits.perAgent;
  }

  /** Admits, in order, every waiter that now fits; a waiter that does not fit lets later ones pass. */
  #wake(): void {
    for (let i = 0; i < this.#waiting.length; ) {
      const waiter = this.#waiting[i]!;
      if (!this.#fits(waiter.holder)) {
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      // Counted now, not when the waiter resumes: the next waiter in this loop must see it.
      this.#take(waiter.holder);
      waiter.admit();
    }
  }

  #take(holder: Holder): void {
    this.#bump(`run:${holder.run}`, 1);
    if (holder.agent !== undefined) this.#bump(`agent:${holder.agent}`, 1);
  }

  #give(holder: Holder): void {
    this.#bump(`run:${holder.run}`, -1);
    if (holder.agent !== undefined) this.#bump(`agent:${holder.agent}`, -1);
  }

  #bump(key: string, by: number): void {
    const next = (this.#held.get(key) ?? 0) + by;
    if (next <= 0) this.#held.delete(key);
    else this.#held.set(key, next);
  }
}
