/**
 * Instances a worker is to destroy, not yet told: a destroy rides on the worker's next task (its
 * `drop`, see protocol.ts) instead of costing a hand-off of its own — under load there always is
 * a next task. One that no task takes along within DROP_ALONE_MS is sent alone (`sendAlone`), so
 * an idle worker still hands an ended run's memory back.
 */
export const DROP_ALONE_MS = 20;

export class PendingDrops {
  #ids: number[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #sendAlone: () => void;

  constructor(sendAlone: () => void) {
    this.#sendAlone = sendAlone;
  }

  get size(): number {
    return this.#ids.length;
  }

  add(instanceId: number): void {
    this.#ids.push(instanceId);
    this.later();
  }

  /** Asks `sendAlone` again in a moment (a task was under way: the next one may take them). */
  later(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#sendAlone();
    }, DROP_ALONE_MS).unref();
  }

  /** Every pending id, for the task being sent now; none are pending after. */
  take(): number[] | undefined {
    if (this.#ids.length === 0) return undefined;
    const ids = this.#ids;
    this.#ids = [];
    this.clear();
    return ids;
  }

  /** Forgets the timer (the worker is gone, or a task took the ids). */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
