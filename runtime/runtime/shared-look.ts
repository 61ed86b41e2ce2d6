/**
 * One look at a changing source (the agents folder and table, the plugin registry) at a time,
 * shared by everyone who asks while it runs — but never one that began before the asker did: a
 * caller who has just put an agent must see it. A caller arriving during a look waits for the
 * next one, which every later caller joins, so a burst of N requests costs two looks, not N.
 */
export class SharedLook {
  readonly #look: () => Promise<void>;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(look: () => Promise<void>) {
    this.#look = look;
  }

  /** Resolves once a look that began after this call has finished (rejects with its error). */
  look(): Promise<void> {
    if (this.#next !== undefined) return this.#next;
    if (this.#running === undefined) return this.#start();
    const next = this.#running
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        return this.#start();
      });
    this.#next = next;
    return next;
  }

  #start(): Promise<void> {
    const running = this.#look().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}
