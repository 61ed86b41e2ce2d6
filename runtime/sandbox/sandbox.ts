import { availableParallelism } from "node:os";
import { SandboxError } from "../errors.js";
import { readVerifiedFiles, type PluginArtifact } from "../plugins/artifact.js";
import { capMemory, readMemoryLimits } from "../plugins/memory-cap.js";
import { typedToolsOf } from "../plugins/typed/index.js";
import { Instance, type InstanceHost } from "./instance.js";
import type { ExtismLoad, HostRequest, HostResponse, WorkerTask } from "./protocol.js";
import type { Binding, SandboxEvent, SandboxOptions, SandboxPlugin, ToolDescriptor } from "./types.js";
import { WorkerHandle } from "./worker-handle.js";
import { FairShare } from "./fair-share.js";
import { QueuedCalls } from "./queued-calls.js";

const PAGE = 65536;

/**
 * Per-task plugin instances in a pool of worker threads.
 *
 * The sandbox owns workers, compiled plugins, the pool of pre-created unbound instances and the
 * routing of host calls to the binding of the instance that made them. It makes no policy
 * decision: a binding's handler does.
 */
export class Sandbox {
  readonly options: Required<Omit<SandboxOptions, "onEvent" | "movePatienceMs">>;
  #onEvent: (event: SandboxEvent) => void;
  #observers = new Set<(event: SandboxEvent) => void>();
  #workers: WorkerHandle[] = [];
  #nextWorkerId = 1;
  #nextInstanceId = 1;
  #instances = new Map<number, Instance>();
  #pools = new Map<string, Instance[]>();
  #refilling = new Set<string>();
  #plugins = new Map<string, Promise<SandboxPlugin>>();
  /** Where each compiled plugin came from, to compile it again under a lower memory cap. */
  #artifacts = new WeakMap<SandboxPlugin, PluginArtifact>();
  #closed = false;
  #host: InstanceHost;
  #fairShare: FairShare;
  #queuedCalls: QueuedCalls;

  constructor(options: SandboxOptions = {}) {
    const workers = options.workers ?? Math.min(2, availableParallelism());
    // One worker is always left to the others: a run or agent whose calls spin cannot hold all.
    const share = Math.max(1, workers - 1);
    this.options = {
      workers,
      callTimeoutMs: options.callTimeoutMs ?? 30_000,
      maxCallTimeoutMs: options.maxCallTimeoutMs ?? 3_600_000,
      callsPerRun: options.callsPerRun ?? share,
      callsPerAgent: options.callsPerAgent ?? share,
      queuedCallsPerRun: options.queuedCallsPerRun ?? 64,
      createTimeoutMs: options.createTimeoutMs ?? 10_000,
      maxResultBytes: options.maxResultBytes ?? 4 << 20,
      memoryMaxMb: options.memoryMaxMb ?? 256,
      maxHeapMb: options.maxHeapMb ?? 512,
      poolSize: options.poolSize ?? 1,
      spinMs: options.spinMs ?? 0.5,
    };
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
    // Workers start with the first instance (or probe): an idle runtime holds none (~8 MB each).
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
      plugin = this.#compile(artifact, key, memoryMaxMb);
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
    for (const instance of this.#pools.get(plugin.key) ?? []) instance.destroy("plugin unloaded");
    this.#pools.delete(plugin.key);
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
    let instance = this.#takePooled(plugin);
    if (!instance) instance = await this.#create(plugin, "call", false);
    instance.bind(binding);
    this.#refill(plugin, instance.worker);
    return instance;
  }

  /**
   * The pooled instance whose worker is least busy: a worker refilling the pool is busy for an
   * instantiation (~3 ms), and a first call queued behind that would wait for it.
   */
  #takePooled(plugin: SandboxPlugin): Instance | undefined {
    const pool = this.#pools.get(plugin.key);
    if (!pool) return undefined;
    // A pooled instance on a busy worker would queue behind that worker's call (perhaps another
    // run's, spinning until its deadline) while a worker sits idle: make one there instead.
    const free = (w: WorkerHandle) => w.alive && !w.busyWithCalls;
    if (this.#workers.some(free) && !pool.some((i) => i.state === "ready" && free(i.worker))) return undefined;
    let best = -1;
    for (let i = 0; i < pool.length; i++) {
      const candidate = pool[i]!;
      if (candidate.state !== "ready" || !candidate.worker.alive) continue;
      if (best < 0 || candidate.worker.load < pool[best]!.worker.load) best = i;
    }
    if (best < 0) {
      pool.length = 0;
      return undefined;
    }
    return pool.splice(best, 1)[0];
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

  /**
   * Fills the pool of `plugin` to its size and waits until it is full. A pooled instance is not
   * warmed by a guest call: a `describe` took more CPU (~4.6 ms, more than the instantiation)
   * than it saved the run's first call (~0.5 ms), and on a busy node that CPU is the runs'.
   */
  async prewarm(plugin: SandboxPlugin, options: { avoid?: WorkerHandle } = {}): Promise<void> {
    const pool = this.#pools.get(plugin.key) ?? [];
    this.#pools.set(plugin.key, pool);
    while (pool.length < this.options.poolSize) {
      const instance = await this.#create(plugin, "background", true, options.avoid);
      if (instance.state === "ready") pool.push(instance);
    }
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
    let pooled = 0;
    for (const pool of this.#pools.values()) pooled += pool.length;
    return { workers: this.#workers.filter((w) => w.alive).length, instances: this.#instances.size, pooled };
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

  async #compile(artifact: PluginArtifact, key: string, memoryMaxMb: number): Promise<SandboxPlugin> {
    const files = await readVerifiedFiles(artifact);
    const maxPages = Math.floor((memoryMaxMb * 1024 * 1024) / PAGE);
    const modules: Record<string, WebAssembly.Module> = {};
    for (const [name, bytes] of Object.entries(files.coreModules)) {
      const capped = readMemoryLimits(bytes).length > 0 ? capMemory(bytes, maxPages) : bytes;
      modules[name] = await WebAssembly.compile(capped as Uint8Array<ArrayBuffer>);
    }
    const typed = artifact.manifest.contract === "typed" ? await typedToolsOf(artifact) : undefined;
    return Object.freeze({ key, manifest: artifact.manifest, format: artifact.format, ...(files.glue === undefined ? {} : { glue: files.glue }), modules: Object.freeze(modules), memoryMaxMb, ...(typed ? { typed } : {}) });
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
      const task: Extract<WorkerTask, { type: "load" }> = { type: "load", pluginKey: plugin.key, format: plugin.format, ...(plugin.glue === undefined ? {} : { glue: plugin.glue }), modules: { ...plugin.modules } };
      if (plugin.format === "extism") task.extism = this.#extismLoad(plugin);
      task.wasi = { env: { ...plugin.manifest.wasi?.env }, config: { ...plugin.manifest.wasi?.config }, args: [plugin.manifest.name] };
      if (plugin.typed) task.typed = plugin.typed;
      loading = worker
        .run(task, { lane: "call", timeoutMs: 30_000 })
        .then((reply) => {
          if (!reply.ok) throw new SandboxError("load_failed", `plugin ${plugin.manifest.name} could not be loaded into a worker`);
        });
      loading.catch(() => worker.loads.delete(plugin.key));
      worker.loads.set(plugin.key, loading);
    }
    return loading;
  }

  /**
   * An Extism plugin's describe defaults, and its kernel budget: the SDK keeps kernel blocks
   * outside wasm memory, so they get a cap of their own, the same size as the memory cap.
   */
  #extismLoad(plugin: SandboxPlugin): ExtismLoad {
    const { capabilities, tools } = plugin.manifest;
    const risks = Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.risk]));
    return { capabilities: [...capabilities], risks, kernelBytes: this.options.memoryMaxMb * 1024 * 1024 };
  }

  #startWorkers(): void {
    while (!this.#closed && this.#workers.length < this.options.workers) this.#workers.push(this.#spawn());
  }

  #pickWorker(avoid?: WorkerHandle): WorkerHandle {
    this.#startWorkers();
    const all = this.#workers.filter((w) => w.alive);
    if (all.length === 0) throw new SandboxError("sandbox_closed", "the sandbox has no live worker");
    const others = all.filter((w) => w !== avoid);
    const alive = others.length > 0 ? others : all;
    // A worker running a guest call may be held by it until its deadline (one that spins): an
    // instantiation queued there would wait as long, so workers free of calls come first.
    // Among busy ones, the call running longest is the likeliest to hold its worker longest.
    const rank = (w: WorkerHandle) => [w.busyWithCalls ? 1 : 0, w.callRunningMs > 50 ? 1 : 0, w.load, w.callRunningMs, w.instanceIds.size];
    return alive.reduce((best, w) => (compareRanks(rank(w), rank(best)) < 0 ? w : best));
  }

  /** Refills in the background, away from `busy` (the worker about to serve a run's first call). */
  #refill(plugin: SandboxPlugin, busy?: WorkerHandle): void {
    if (this.options.poolSize === 0 || this.#refilling.has(plugin.key) || this.#closed) return;
    this.#refilling.add(plugin.key);
    this.prewarm(plugin, busy ? { avoid: busy } : {})
      .catch(() => {})
      .finally(() => this.#refilling.delete(plugin.key));
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

  /** Routes a guest's host call to the binding of the instance that made it. */
  async #serve([instanceId, iface, fn, args]: HostRequest): Promise<HostResponse> {
    const instance = this.#instances.get(instanceId);
    const binding = instance?.state === "bound" ? instance.binding : undefined;
    if (!binding) {
      this.#onEvent({ type: "unbound-host-call", instanceId, plugin: instance?.plugin.manifest.name ?? "?", iface, fn });
      return {
        ok: false,
        error: {
          tag: "denied",
          val: { capability: iface, reason: "unbound-instance", message: "host calls are refused until the instance is bound to a run" },
        },
      };
    }
    const result = await binding.handler({ iface, fn, args });
    return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error };
  }

  #spawn(): WorkerHandle {
    return new WorkerHandle(this.#nextWorkerId++, {
      maxResultBytes: this.options.maxResultBytes,
      maxHeapMb: this.options.maxHeapMb,
      spinMs: this.options.spinMs,
      serveHostCall: (request) => this.#serve(request),
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
    for (const [key, pool] of this.#pools) this.#pools.set(key, pool.filter((i) => i.worker !== handle));
    const index = this.#workers.indexOf(handle);
    if (index >= 0 && !this.#closed) this.#workers[index] = this.#spawn();
  }

  #assertOpen(): void {
    if (this.#closed) throw new SandboxError("sandbox_closed", "the sandbox is closed");
  }
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
