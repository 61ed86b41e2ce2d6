import { setFlagsFromString } from "node:v8";
import { MessageChannel, Worker } from "node:worker_threads";
import { SandboxError } from "../errors.js";
import { Channel, ChannelClosedError, createChannelBuffer, NOT_READY } from "./channel.js";
import { PendingDrops } from "./pending-drops.js";
import type { HostRequest, HostResponse, SentTask, WorkerInit, WorkerReply, WorkerTask } from "./protocol.js";

// Named from dist/runtime/, not from this file: the command line's bundle (dist/runtime/cli-bundle/)
// holds this code too, one folder over.
const WORKER_FILE = new URL("../sandbox/worker.js", import.meta.url);

/**
 * A worker collects the memories of the instances it dropped once it idles (worker.ts). `gc` is
 * exposed to the isolates created from now on (the workers'; the main thread's already exists):
 * V8 options cannot be given to one worker, and guests never see the worker's globals.
 */
let gcExposed = false;
function exposeGcToWorkers(): void {
  if (gcExposed) return;
  gcExposed = true;
  setFlagsFromString("--expose-gc");
}

/** Task lanes: guest calls go before pool refills, so pre-creating never delays a run. */
export type Lane = "call" | "background";

interface Queued {
  task: WorkerTask;
  timeoutMs: number;
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
}

export interface WorkerHandleOptions {
  maxResultBytes: number;
  /** How long the main thread polls for a guest call's reply before parking (ms). */
  spinMs: number;
  /** JS heap cap of the worker (the wasm memory cap is in the modules themselves). */
  maxHeapMb: number;
  serveHostCall: (request: HostRequest) => Promise<HostResponse>;
  /** Called once when the worker is gone (killed on a deadline, crashed or closed). */
  onExit: (handle: WorkerHandle, reason: string) => void;
}

/**
 * One worker thread and its task queue. It runs one task at a time, so a deadline measures
 * exactly one guest call, and killing the worker on that deadline loses no other call in
 * flight: calls still queued are handed back to the sandbox to run elsewhere.
 */
/** Handles polling for a reply right now (see #await). */
let spinners = 0;

export class WorkerHandle {
  readonly id: number;
  /** Plugin key → the load of its glue and modules into this worker. */
  readonly loads = new Map<string, Promise<void>>();
  readonly instanceIds = new Set<number>();
  #worker: Worker;
  #hostChannel: Channel;
  #taskChannel: Channel;
  #lanes: Record<Lane, Queued[]> = { call: [], background: [] };
  #current: (Queued & { timer: NodeJS.Timeout | undefined; startedAt: number }) | undefined;
  #alive = true;
  #exitReason = "closed";
  /** Instances destroyed since the last task was sent (see `post`). */
  #drops = new PendingDrops(() => this.#sendDrops());
  #options: WorkerHandleOptions;

  constructor(id: number, options: WorkerHandleOptions) {
    this.id = id;
    this.#options = options;
    const hostBuffer = createChannelBuffer();
    const taskBuffer = createChannelBuffer();
    const hostPorts = new MessageChannel();
    const taskPorts = new MessageChannel();
    this.#hostChannel = new Channel(hostBuffer, hostPorts.port1);
    this.#taskChannel = new Channel(taskBuffer, taskPorts.port1);
    const init: WorkerInit = {
      hostBuffer,
      hostPort: hostPorts.port2,
      taskBuffer,
      taskPort: taskPorts.port2,
      maxResultBytes: options.maxResultBytes,
    };
    exposeGcToWorkers();
    this.#worker = new Worker(WORKER_FILE, {
      workerData: init,
      transferList: [hostPorts.port2, taskPorts.port2],
      env: {}, // no secret, key or token ever enters a worker
      execArgv: [],
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
    this.#worker.on("error", (error) => this.#die(`worker crashed: ${error.message}`));
    this.#worker.on("exit", (code) => this.#die(`worker exited with code ${code}`));
    void this.#hostChannel.serveAsync((request) => options.serveHostCall(request as HostRequest));
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Queued plus running tasks: the load measure for placing new instances. */
  get load(): number {
    return this.#lanes.call.length + this.#lanes.background.length + (this.#current ? 1 : 0);
  }

  /** How long the guest call running now has run (ms; 0 when none runs). */
  get callRunningMs(): number {
    return this.#current?.task.type === "call" ? performance.now() - this.#current.startedAt : 0;
  }

  /** Whether a guest call runs or waits here (a pool refill does not count: it is short). */
  get busyWithCalls(): boolean {
    return this.#lanes.call.some((q) => q.task.type === "call") || this.#current?.task.type === "call";
  }

  run(task: WorkerTask, options: { lane: Lane; timeoutMs: number }): Promise<WorkerReply> {
    if (!this.#alive) return Promise.reject(lost(this.#exitReason));
    return new Promise((resolve, reject) => {
      this.#lanes[options.lane].push({ task, timeoutMs: options.timeoutMs, resolve, reject });
      this.#pump();
    });
  }

  /**
   * Queues a task whose reply nobody waits for (destroy, unload). A destroy rides on the next
   * task sent (pending-drops.ts). Others take the call lane: cheap, and behind a stream of
   * creations they would starve.
   */
  post(task: WorkerTask): void {
    if (!this.#alive) return;
    if (task.type === "destroy") this.#drops.add(task.instanceId);
    else void this.run(task, { lane: "call", timeoutMs: 5_000 }).catch(() => {});
  }

  /** Destroys no task took along: sent as a task of their own, unless one is under way. */
  #sendDrops(): void {
    if (!this.#alive || this.#drops.size === 0) return;
    if (this.#current) return this.#drops.later();
    const [first, ...rest] = this.#drops.take()!;
    for (const id of rest) this.#drops.add(id);
    void this.run({ type: "destroy", instanceId: first! }, { lane: "call", timeoutMs: 5_000 }).catch(() => {});
  }

  /**
   * Stops the guest call of instance `instanceId` if it is the one running now: the worker is
   * ended (a guest cannot be interrupted any other way), that call fails as stopped, and every
   * other instance of the worker is rebuilt on its next call. False when it was not running.
   */
  abortCall(instanceId: number, reason: string): boolean {
    const current = this.#current;
    if (!current || current.task.type !== "call" || current.task.instanceId !== instanceId) return false;
    this.#die(reason, current);
    return true;
  }

  /** Whether `task` waits in this worker's queue (queued, not running). */
  queues(task: WorkerTask): boolean {
    return this.#lanes.call.some((q) => q.task === task) || this.#lanes.background.some((q) => q.task === task);
  }

  /**
   * Takes `task` back out of the queue before it started; its `run` promise rejects with
   * `call_moved`. False when it is running already or was never queued here.
   */
  withdraw(task: WorkerTask): boolean {
    for (const lane of [this.#lanes.call, this.#lanes.background]) {
      const index = lane.findIndex((q) => q.task === task);
      if (index < 0) continue;
      const [queued] = lane.splice(index, 1);
      queued!.reject(new SandboxError("call_moved", "the call was moved to another worker before it started"));
      return true;
    }
    return false;
  }

  async terminate(reason: string): Promise<void> {
    if (!this.#alive) return;
    this.#die(reason);
  }

  #pump(): void {
    if (this.#current || !this.#alive) return;
    const next = this.#lanes.call.shift() ?? this.#lanes.background.shift();
    if (!next) return;
    const timer =
      next.timeoutMs > 0
        ? setTimeout(() => this.#die(`deadline of ${next.timeoutMs} ms exceeded`, next), next.timeoutMs)
        : undefined;
    const current = { ...next, timer, startedAt: performance.now() };
    this.#current = current;
    const drop = this.#drops.take();
    const sent: SentTask = drop === undefined ? next.task : { ...next.task, drop };
    this.#taskChannel.send(sent, { clone: next.task.type === "load" });
    this.#await(current).catch((error: unknown) => {
      if (!(error instanceof ChannelClosedError)) this.#die(`task channel failed: ${(error as Error).message}`);
    });
  }

  /**
   * Waits for the current task's reply. A guest call usually ends within tens of µs, far less
   * than one `Atomics.waitAsync` wake-up (~40-60 µs on Node 20), so for calls the main thread
   * first polls both channels for a short, bounded window, serving the call's host requests as
   * they come. Anything longer, or a host call waiting on I/O, falls back to `waitAsync`.
   */
  async #await(current: Queued): Promise<void> {
    // One poller at a time: when calls are in flight on several workers (many runs at once),
    // the others park in waitAsync rather than share the main thread polling.
    const spinning = current.task.type === "call" && this.#options.spinMs > 0 && spinners === 0;
    if (spinning) spinners++;
    try {
      await this.#poll(current, spinning);
    } finally {
      if (spinning) spinners--;
    }
  }

  async #poll(current: Queued, spinning: boolean): Promise<void> {
    let spinUntil = spinning ? performance.now() + this.#options.spinMs : 0;
    let lastYield = performance.now();
    for (;;) {
      if (this.#current !== current) return;
      const reply = this.#taskChannel.poll();
      if (reply !== NOT_READY) {
        this.#settle(reply as WorkerReply);
        return;
      }
      if (performance.now() < spinUntil) {
        // Host calls come in bursts (a guest walking a tree): each one keeps the window open.
        if (this.#hostChannel.serveReady()) spinUntil = performance.now() + this.#options.spinMs;
        // A host call in progress settles in microtasks (policy, log) or needs the event loop
        // (file I/O): yield to microtasks first, then give the loop a turn.
        if (this.#hostChannel.serving) {
          for (let i = 0; i < 16 && this.#hostChannel.serving; i++) await Promise.resolve();
          if (this.#hostChannel.serving) await nextTurn();
        }
        // Never hold the event loop for long: other workers and requests need it too.
        if (performance.now() - lastYield > 0.1) {
          await nextTurn();
          lastYield = performance.now();
        }
        continue;
      }
      await this.#taskChannel.wait();
    }
  }

  #settle(reply: WorkerReply): void {
    const current = this.#current;
    if (!current) return;
    this.#current = undefined;
    if (current.timer) clearTimeout(current.timer);
    current.resolve(reply);
    this.#pump();
  }

  /**
   * Ends the worker. The task that caused it (a deadline) fails with `deadline_exceeded`; every
   * other task fails with `instance_lost`, which callers answer by rebuilding elsewhere.
   */
  #die(reason: string, culprit?: Queued): void {
    if (!this.#alive) return;
    this.#alive = false;
    this.#exitReason = reason;
    this.#drops.take();
    this.#hostChannel.close();
    this.#taskChannel.close();
    void this.#worker.terminate();
    const current = this.#current;
    this.#current = undefined;
    if (current) {
      if (current.timer) clearTimeout(current.timer);
      current.reject(current === culprit || (culprit && current.task === culprit.task) ? deadline(reason) : lost(reason));
    }
    for (const queued of [...this.#lanes.call, ...this.#lanes.background]) queued.reject(lost(reason));
    this.#lanes = { call: [], background: [] };
    this.#options.onExit(this, reason);
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function lost(reason: string): SandboxError {
  return new SandboxError("instance_lost", `sandbox worker is gone (${reason}); the instance must be rebuilt`);
}

function deadline(reason: string): SandboxError {
  return new SandboxError("deadline_exceeded", `the guest call was stopped: ${reason}`);
}
