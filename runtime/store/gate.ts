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

  async run<T>(work: () => Promise<T> | T): Promise<T> {
    await this.#acquire();
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #release(): void {
    const next = this.#waiters.shift();
    // Hand the gate straight to the next waiter so a newcomer cannot jump the queue.
    if (next === undefined) this.#held = false;
    else next();
  }
}
