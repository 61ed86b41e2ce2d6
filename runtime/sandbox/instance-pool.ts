/**
 * The unbound instances kept ready per plugin, so a run's first call need not wait for an
 * instantiation. A pooled instance is not warmed by a guest call: a warm-up `describe` was one
 * more task per run in the workers' queues (~0.6 ms of guest time, waiting behind calls), which
 * runs' calls then queued behind, to save a run's first call ~0.5 ms; without it one-call runs
 * went ~20% faster at concurrency 1 and 8 (measured in the same minute).
 */
import type { Instance } from "./instance.js";
import type { SandboxPlugin } from "./types.js";
import type { WorkerHandle } from "./worker-handle.js";
import { takePooled } from "./worker-pick.js";

export interface InstancePoolOptions {
  /** Unbound instances kept per plugin (0 disables the pool). */
  size: number;
  /** Makes a new unbound instance, off the `avoid` worker when another is alive. */
  create: (plugin: SandboxPlugin, avoid: WorkerHandle | undefined) => Promise<Instance>;
  /** Whether the sandbox is closed (nothing is refilled then). */
  closed: () => boolean;
}

export class InstancePool {
  readonly #pools = new Map<string, Instance[]>();
  readonly #filling = new Map<string, Promise<void>>();
  readonly #warmed = new WeakSet<Instance>();
  /** Per plugin: fills and warm-ups under way, and the one acquire waiting for what they add. */
  readonly #adding = new Map<string, number>();
  readonly #waiter = new Map<string, () => void>();
  readonly #options: InstancePoolOptions;

  constructor(options: InstancePoolOptions) {
    this.#options = options;
  }

  /** A ready pooled instance of `plugin`, or undefined when a fresh one would serve sooner. */
  take(plugin: SandboxPlugin, workers: readonly WorkerHandle[]): Instance | undefined {
    const pool = this.#pools.get(plugin.key);
    return pool ? takePooled(pool, workers) : undefined;
  }

  /**
   * Fills the pool of `plugin` to its size and waits until it is full. One fill per plugin at a
   * time: a run readying its plugins while a refill runs joins it rather than overfilling.
   */
  fill(plugin: SandboxPlugin, avoid?: WorkerHandle): Promise<void> {
    const running = this.#filling.get(plugin.key);
    if (running) return running;
    const filling = this.#tracked(plugin.key, () => this.#fill(plugin, avoid)).finally(() => this.#filling.delete(plugin.key));
    this.#filling.set(plugin.key, filling);
    return filling;
  }

  /** Refills in the background, away from `busy` (the worker about to serve a run's first call). */
  refill(plugin: SandboxPlugin, busy?: WorkerHandle): void {
    if (this.#options.size === 0 || this.#options.closed()) return;
    this.fill(plugin, busy).catch(() => {});
  }

  async #fill(plugin: SandboxPlugin, avoid: WorkerHandle | undefined): Promise<void> {
    const pool = this.#pools.get(plugin.key) ?? [];
    this.#pools.set(plugin.key, pool);
    while (pool.length < this.#options.size && !this.#options.closed()) {
      const instance = await this.#options.create(plugin, avoid);
      if (instance.state === "ready") {
        pool.push(instance);
        this.#wake(plugin.key);
      }
    }
  }

  /**
   * When a fill or warm-up of `plugin` is under way and nobody waits on it yet: a promise that
   * settles once it has added an instance (or ended). An acquire finding the pool empty then
   * takes that instance rather than instantiating a second one beside it; only one waits per
   * plugin, so concurrent acquires still create theirs in parallel.
   */
  arrival(plugin: SandboxPlugin): Promise<void> | undefined {
    if ((this.#adding.get(plugin.key) ?? 0) === 0 || this.#waiter.has(plugin.key)) return undefined;
    return new Promise((resolve) => this.#waiter.set(plugin.key, resolve));
  }

  #wake(key: string): void {
    const wake = this.#waiter.get(key);
    this.#waiter.delete(key);
    wake?.();
  }

  async #tracked<T>(key: string, work: () => Promise<T>): Promise<T> {
    this.#adding.set(key, (this.#adding.get(key) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (this.#adding.get(key) ?? 1) - 1;
      if (left === 0) this.#adding.delete(key);
      else this.#adding.set(key, left);
      this.#wake(key);
    }
  }

  /**
   * Runs one `describe` in each pooled instance of `plugin` not warmed yet: the engine's code a
   * guest call runs is compiled and the instance's memory paged in before a run binds it, not
   * on its first call. Unbound, the instance's host calls are refused as ever; one that fails
   * here (a trap) leaves the pool.
   */
  warm(plugin: SandboxPlugin): Promise<void> {
    return this.#tracked(plugin.key, () => this.#warm(plugin));
  }

  async #warm(plugin: SandboxPlugin): Promise<void> {
    const pool = this.#pools.get(plugin.key);
    if (!pool) return;
    // Out of the pool while it runs: no call binds an instance whose describe is under way
    // (its host calls would then be served under that call's binding).
    const cold = pool.filter((instance) => !this.#warmed.has(instance) && instance.state === "ready");
    for (const instance of cold) pool.splice(pool.indexOf(instance), 1);
    await Promise.all(
      cold.map(async (instance) => {
        this.#warmed.add(instance);
        await instance.describe().catch(() => undefined);
        // Back in its pool, unless the plugin was dropped or the sandbox closed meanwhile.
        if (instance.state === "ready" && this.#pools.get(plugin.key) === pool && !this.#options.closed()) {
          pool.push(instance);
          this.#wake(plugin.key);
        } else instance.destroy("not pooled after its warm-up");
      }),
    );
  }

  /** Destroys the pooled instances of the plugin whose key is `key`. */
  drop(key: string): void {
    for (const instance of this.#pools.get(key) ?? []) instance.destroy("plugin unloaded");
    this.#pools.delete(key);
  }

  /** Forgets the instances lost with `worker`. */
  dropWorker(worker: WorkerHandle): void {
    for (const [key, pool] of this.#pools) this.#pools.set(key, pool.filter((i) => i.worker !== worker));
  }

  get size(): number {
    let pooled = 0;
    for (const pool of this.#pools.values()) pooled += pool.length;
    return pooled;
  }
}
