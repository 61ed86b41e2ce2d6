/**
 * A FIFO lock over one connection. An interactive transaction holds it across awaits, so a
 * statement issued meanwhile by another part of the runtime waits instead of silently running
 * inside someone else's transaction (one connection has one transaction).
 */
export class ConnectionGate {
  #held = false;
  #waiters: (() => void)[] = [];

  /** True when nobody holds the gate or waits for it: a synchronous call may run right now. */
  get idle(): boolean {
    return !this.#held && this.#waiters.length === 0;
  }

  /**
   * Runs `work` once the gate is free. With `wait`, a call still queued after `wait.ms` leaves
   * the queue and rejects with `wait.error()`: a transaction that holds the connection too long
   * fails the calls behind it instead of stalling them without end.
   */
  async run<T>(work: () => Promise<T> | T, wait?: { ms: number; error: () => Error }): Promise<T> {
    await this.#acquire(wait);
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #acquire(wait: { ms: number; error: () => Error } | undefined): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      const timer =
        wait === undefined
          ? undefined
          : setTimeout(() => {
              this.#waiters = this.#waiters.filter((w) => w !== waiter);
              reject(wait.error());
            }, wait.ms);
      this.#waiters.push(waiter);
    });
  }

  #release(): void {
    const next = this.#waiters.shift();
    // Hand the gate straight to the next waiter so a newcomer cannot jump the queue.
    if (next === undefined) this.#held = false;
    else next();
  }
}
