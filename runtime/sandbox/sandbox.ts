import { SandboxError } from "../errors.js";
import type { PluginArtifact } from "../plugins/artifact.js";
import { Instance, type InstanceHost } from "./instance.js";
import { compilePlugin, loadTask } from "./plugin-load.js";
import { routeHostCall } from "./host-routing.js";
import type { WorkerTask } from "./protocol.js";
import { resolveSandboxOptions, type ResolvedSandboxOptions } from "./sandbox-options.js";
import { pickWorker } from "./worker-pick.js";
import { InstancePool } from "./instance-pool.js";
import type { Binding, SandboxEvent, SandboxOptions, SandboxPlugin, ToolDescriptor } from "./types.js";
import { WorkerHandle } from "./worker-handle.js";
import { FairShare } from "./fair-share.js";
import { QueuedCalls } from "./queued-calls.js";

/**
 * Per-task plugin instances in a pool of worker threads.
 *
 * The sandbox owns workers, compiled plugins, the pool of pre-created unbound instances and the
 * routing of host calls to the binding of the instance that made them. It makes no policy
 * decision: a binding's handler does.
 */
export class Sandbox {
  readonly options: ResolvedSandboxOptions;
  #onEvent: (event: SandboxEvent) => void;
  #observers = new Set<(event: SandboxEvent) => void>();
  #workers: WorkerHandle[] = [];
  #nextWorkerId = 1;
  #nextInstanceId = 1;
  #instances = new Map<number, Instance>();
  #pool: InstancePool;
  #plugins = new Map<string, Promise<SandboxPlugin>>();
  /** Where each compiled plugin came from, to compile it again under a lower memory cap. */
  #artifacts = new WeakMap<SandboxPlugin, PluginArtifact>();
  #closed = false;
  #host: InstanceHost;
  #fairShare: FairShare;
  #queuedCalls: QueuedCalls;

  constructor(options: SandboxOptions = {}) {
    this.options = resolveSandboxOptions(options);
    this.#pool = new InstancePool({ size: this.options.poolSize, create: (plugin, avoid) => this.#create(plugin, "background", true, avoid), closed: () => this.#closed });
    const listener = options.onEvent ?? (() => {});
    this.#onEvent = (event) => {
      listener(event);
      for (const observer of this.#observers) observer(event);
    };
    this.#queuedCalls = new QueuedCalls({ patienceMs: options.movePatienceMs ?? 100, offload: (instance, task) => this.#offload(instance, task) });
    this.#fairShare = new FairShare({ perRun: this.options.callsPerRun, perAgent: this.options.callsPerAgent, queuedPerRun: this.options.queuedCallsPerRun });
    this.#host = {
      callTimeoutMs: Math.min(this.options.callTimeoutMs, this.options.maxCallTimeoutMs),
      maxCallTimeoutMs: this.options.maxCallTimeoutMs,
      admit: (instance) => this.#fairShare.admit({ run: instance.binding!.label, agent: instance.binding!.agent }),
      watch: (instance, task) => this.#queuedCalls.watch(instance, task),
      memoryCapBytes: this.options.memoryMaxMb * 1024 * 1024,
      rebuild: (instance) => this.#place(instance.plugin, "call").then(({ guestId, worker }) => {
        this.#instances.set(guestId, instance);
        return { guestId, worker };
      }),
      release: (instance, reason) => this.#release(instance, reason),
    };
    if (this.options.startWorkers) this.#startWorkers(); // else with the first instance or probe (types.ts)
  }

  /**
   * Adds a listener of the sandbox's events beside the one given at construction (the runtime
   * audits refused unbound host calls through one); returns how to remove it.
   */
  observe(listener: (event: SandboxEvent) => void): () => void {
    this.#observers.add(listener);
    return () => this.#observers.delete(listener);
  }

  /**
   * Verifies a built plugin against its recorded hashes, caps its memory and compiles it once.
   * Loading the same artifact again returns the same compiled plugin.
   */
  load(artifact: PluginArtifact, options: { memoryMaxMb?: number } = {}): Promise<SandboxPlugin> {
    // A lower cap (an agent's limits.memory_mb) is compiled apart; never a higher one than the operator's.
    const memoryMaxMb = Math.min(options.memoryMaxMb ?? this.options.memoryMaxMb, this.options.memoryMaxMb);
    const key = `${artifact.key}:${memoryMaxMb}`;
    let plugin = this.#plugins.get(key);
    if (!plugin) {
      plugin = compilePlugin(artifact, key, memoryMaxMb);
      void plugin.then((p) => this.#artifacts.set(p, artifact), () => undefined);
      plugin.catch(() => this.#plugins.delete(key));
      this.#plugins.set(key, plugin);
    }
    return plugin;
  }

  /**
   * Drops what the sandbox keeps of `plugin`: its compiled code in the cache, its copies in
   * the workers, its pooled instances. The plugin stays usable (a later instance loads it
   * again); instances already made keep working.
   */
  unload(plugin: SandboxPlugin): void {
    const artifact = this.#artifacts.get(plugin);
    for (const [key, cached] of this.#plugins) {
      void cached.then((p) => {
        if (this.#plugins.get(key) !== cached) return;
        if (p === plugin) this.#plugins.delete(key);
        // Its copies compiled under an agent's lower memory cap go with it (each entry once).
        else if (artifact !== undefined && this.#artifacts.get(p) === artifact) {
          this.#plugins.delete(key);
          this.unload(p);
        }
      }, () => undefined);
    }
    this.#pool.drop(plugin.key);
    for (const worker of this.#workers) {
      if (worker.alive && worker.loads.delete(plugin.key)) worker.post({ type: "unload", pluginKey: plugin.key });
    }
  }

  /**
   * An instance of `plugin` bound to `binding`: a pre-created one when the pool has it (warm),
   * else a new one (cold). The pool refills in the background.
   */
  async acquire(plugin: SandboxPlugin, binding: Binding): Promise<Instance> {
    this.#assertOpen();
    let instance = this.#pool.take(plugin, this.#workers);
    // A fill under way is nearer done than a new instance would be (InstancePool.arrival).
    const arriving = instance ? undefined : this.#pool.arrival(plugin);
    if (arriving) {
      await arriving;
      instance = this.#pool.take(plugin, this.#workers);
    }
    if (!instance) instance = await this.#create(plugin, "call", false);
    instance.bind(binding);
    if (this.options.refillPool) this.#pool.refill(plugin, instance.worker);
    return instance;
  }

  /** Reads a plugin's tool descriptors from a fresh, unbound instance (its host calls are refused). */
  async describe(plugin: SandboxPlugin): Promise<ToolDescriptor[]> {
    const instance = await this.#create(plugin, "call", false);
    try {
      return await instance.describe();
    } finally {
      instance.destroy("described");
    }
  }

  /** Fills the pool of `plugin` and waits until it is full; `warm`: see InstancePool.warm. */
  async prewarm(plugin: SandboxPlugin, options: { avoid?: WorkerHandle; warm?: boolean } = {}): Promise<void> {
    await this.#pool.fill(plugin, options.avoid);
    if (options.warm === true) await this.#pool.warm(plugin);
  }

  /** Asks every live worker what it sees (environment size, instance count). */
  async probeWorkers(): Promise<Array<{ workerId: number; envKeys: number; instances: number }>> {
    this.#startWorkers();
    const alive = this.#workers.filter((w) => w.alive);
    const replies = await Promise.all(alive.map((w) => w.run({ type: "ping" }, { lane: "call", timeoutMs: 5_000 })));
    return replies.map((reply, i) => ({ workerId: alive[i]!.id, ...(reply.ok ? (reply.value as { envKeys: number; instances: number }) : { envKeys: -1, instances: -1 }) }));
  }

  /** Live instances bound with `label` (a run id): how the runtime shows a run holds none. */
  instancesOf(label: string): number {
    let count = 0;
    for (const instance of this.#instances.values()) if (instance.binding?.label === label) count++;
    return count;
  }

  stats(): { workers: number; instances: number; pooled: number } {
    return { workers: this.#workers.filter((w) => w.alive).length, instances: this.#instances.size, pooled: this.#pool.size };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#queuedCalls.close();
    for (const instance of [...this.#instances.values()]) instance.destroy("sandbox closed");
    await Promise.all(this.#workers.map((w) => w.terminate("sandbox closed")));
    this.#workers = [];
  }

  /**
   * `plugin` compiled with a wasm memory cap of at most `memoryMaxMb` (an agent's
   * `limits.memory_mb`): the same plugin when the cap is not lower than its own.
   */
  async capped(plugin: SandboxPlugin, memoryMaxMb: number): Promise<SandboxPlugin> {
    const artifact = this.#artifacts.get(plugin);
    if (artifact === undefined || memoryMaxMb >= (plugin.memoryMaxMb ?? this.options.memoryMaxMb)) return plugin;
    return this.load(artifact, { memoryMaxMb });
  }

  async #create(plugin: SandboxPlugin, lane: "call" | "background", pooled: boolean, avoid?: WorkerHandle): Promise<Instance> {
    const started = performance.now();
    const placement = await this.#place(plugin, lane, avoid);
    const instance = new Instance(plugin, placement, this.#host);
    this.#instances.set(placement.guestId, instance);
    this.#onEvent({
      type: "instance-created",
      instanceId: placement.guestId,
      plugin: plugin.manifest.name,
      workerId: placement.worker.id,
      ms: performance.now() - started,
      warm: pooled,
    });
    return instance;
  }

  /** Instantiates `plugin` in the least busy live worker; returns the guest's id there. */
  async #place(plugin: SandboxPlugin, lane: "call" | "background", avoid?: WorkerHandle): Promise<{ guestId: number; worker: WorkerHandle }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      this.#assertOpen();
      const worker = this.#pickWorker(avoid);
      const guestId = this.#nextInstanceId++;
      try {
        await this.#ensureLoaded(worker, plugin);
        const reply = await worker.run({ type: "create", instanceId: guestId, pluginKey: plugin.key }, { lane, timeoutMs: this.options.createTimeoutMs });
        if (!reply.ok) {
          const message = reply.failure.kind === "trap" ? reply.failure.message : reply.failure.kind;
          throw new SandboxError("instantiate_failed", `plugin ${plugin.manifest.name} could not be instantiated: ${message}`);
        }
        worker.instanceIds.add(guestId);
        return { guestId, worker };
      } catch (error) {
        if (!(error instanceof SandboxError && error.code === "instance_lost")) throw error;
      }
    }
    throw new SandboxError("instance_lost", `plugin ${plugin.manifest.name}: no worker stayed alive long enough to instantiate it`);
  }

  #ensureLoaded(worker: WorkerHandle, plugin: SandboxPlugin): Promise<void> {
    let loading = worker.loads.get(plugin.key);
    if (!loading) {
      loading = worker
        .run(loadTask(plugin, { kernelBytes: this.options.memoryMaxMb * 1024 * 1024, logLevel: this.options.extismLogLevel }), { lane: "call", timeoutMs: 30_000 })
        .then((reply) => {
          if (!reply.ok) throw new SandboxError("load_failed", `plugin ${plugin.manifest.name} could not be loaded into a worker`);
        });
      loading.catch(() => worker.loads.delete(plugin.key));
      worker.loads.set(plugin.key, loading);
    }
    return loading;
  }

  #startWorkers(): void {
    while (!this.#closed && this.#workers.length < this.options.workers) this.#workers.push(this.#spawn());
  }

  #pickWorker(avoid?: WorkerHandle): WorkerHandle {
    this.#startWorkers();
    const worker = pickWorker(this.#workers, avoid);
    if (!worker) throw new SandboxError("sandbox_closed", "the sandbox has no live worker");
    return worker;
  }

  /**
   * Moves `instance` off a busy worker whose queue holds its call `task`, when another worker is
   * idle: the call is withdrawn (it reruns on the new guest) and the old guest destroyed. Its
   * in-memory state starts fresh there, as after a worker lost to another run's deadline.
   */
  #offload(instance: Instance, task: WorkerTask): boolean {
    const from = instance.worker;
    if (this.#closed || !this.#workers.some((w) => w !== from && w.alive && w.load === 0)) return false;
    if (!from.withdraw(task)) return false;
    this.#instances.delete(instance.id);
    from.instanceIds.delete(instance.id);
    from.post({ type: "destroy", instanceId: instance.id });
    instance.markLost();
    this.#onEvent({ type: "instance-moved", instanceId: instance.id, plugin: instance.plugin.manifest.name, fromWorkerId: from.id });
    return true;
  }

  #release(instance: Instance, reason: string): void {
    this.#instances.delete(instance.id);
    instance.worker.instanceIds.delete(instance.id);
    instance.worker.post({ type: "destroy", instanceId: instance.id });
    this.#onEvent({ type: "instance-destroyed", instanceId: instance.id, plugin: instance.plugin.manifest.name, reason });
  }

  #spawn(): WorkerHandle {
    return new WorkerHandle(this.#nextWorkerId++, {
      maxResultBytes: this.options.maxResultBytes,
      maxHeapMb: this.options.maxHeapMb,
      spinMs: this.options.spinMs,
      serveHostCall: (request) => routeHostCall(this.#instances.get(request[0]), request, this.#onEvent),
      onExit: (handle, reason) => this.#onWorkerExit(handle, reason),
    });
  }

  #onWorkerExit(handle: WorkerHandle, reason: string): void {
    this.#onEvent({ type: "worker-exit", workerId: handle.id, reason });
    for (const guestId of handle.instanceIds) {
      const instance = this.#instances.get(guestId);
      this.#instances.delete(guestId);
      if (instance?.state === "bound") instance.markLost();
    }
    handle.instanceIds.clear();
    this.#pool.dropWorker(handle);
    const index = this.#workers.indexOf(handle);
    if (index >= 0 && !this.#closed) this.#workers[index] = this.#spawn();
  }

  #assertOpen(): void {
    if (this.#closed) throw new SandboxError("sandbox_closed", "the sandbox is closed");
  }
}
