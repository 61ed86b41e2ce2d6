/**
 * A small pool of worker threads for parsing untrusted bytes (iCalendar expansion, MIME, HTML)
 * whose libraries cannot be bounded from outside: a job runs in a worker under a CPU budget, a
 * wall-clock backstop and a heap cap, and a worker past a bound is terminated and replaced, so
 * a hostile file costs one job a clear error and never stalls the main thread. Workers stay
 * warm between jobs and hold the event loop only while they work.
 *
 * The budget is the CPU time of the worker's own thread (thread-clock.ts), read while the job
 * runs: what a job costs is its own business, what else the machine is doing is not, so a
 * 400 KB calendar that needs one second of CPU parses on a machine too busy to give it that
 * second within ten, while an endless rule still uses up its budget and is stopped. The
 * backstop (much longer) ends a job that makes no progress at all (a starved or stuck thread).
 * Where no thread clock exists (not Linux) the budget is enforced on the wall clock, as it was.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { HostProxyError } from "../types.js";
import type { JobKind, JobInput, JobOutput, WorkerHello, WorkerReply } from "./protocol.js";
import { cpuTimeMs } from "./thread-clock.js";

// Named from dist/, not from this file: the command line's bundle (dist/runtime/cli-bundle/) holds
// this code too, at the same depth.
const WORKER_FILE = new URL("../../host-proxies/_parse/worker.js", import.meta.url);

export interface ParsePoolOptions {
  /** Workers at most; default 2 (or fewer cores). */
  size?: number;
  /** CPU time one job may use on its worker's thread (ms); default 10 000. */
  cpuMs?: number;
  /** Wall-clock time one job may take whatever it used (ms); default 120 000, never below `cpuMs`. */
  deadlineMs?: number;
  /** JS heap of one worker (MB); default 512. */
  maxHeapMb?: number;
  /** How often a running job's CPU time is read (ms); default 50. */
  pollMs?: number;
}

export const PARSE_LIMITS = { cpuMs: 10_000, deadlineMs: 120_000, maxHeapMb: 512 } as const;

interface Job {
  kind: JobKind;
  input: unknown;
  label: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Running extends Job {
  id: number;
  timer: NodeJS.Timeout;
  /** The worker thread's CPU time (ms) when the job was handed over; 0 for a fresh worker. */
  cpuAtStart: number;
}

interface Slot {
  worker: Worker;
  job: Running | undefined;
  /** The worker's thread, once it has said (`WorkerHello`); `null` when it has no clock. */
  clock: string | null | undefined;
  /** The job's CPU time is read on this interval while it runs. */
  poll: NodeJS.Timeout | undefined;
}

export class ParsePool {
  readonly #size: number;
  readonly #cpuMs: number;
  readonly #deadlineMs: number;
  readonly #maxHeapMb: number;
  readonly #pollMs: number;
  readonly #slots = new Set<Slot>();
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: ParsePoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? Math.min(2, availableParallelism()));
    this.#cpuMs = options.cpuMs ?? PARSE_LIMITS.cpuMs;
    this.#deadlineMs = Math.max(this.#cpuMs, options.deadlineMs ?? PARSE_LIMITS.deadlineMs);
    this.#maxHeapMb = options.maxHeapMb ?? PARSE_LIMITS.maxHeapMb;
    this.#pollMs = Math.max(1, options.pollMs ?? 50);
  }

  /**
   * Runs one job off the main thread. `label` names the input in errors ("calendar work").
   * A HostProxyError thrown by the job arrives as itself; a job past its CPU budget or its
   * deadline, or out of memory, is an `io` HostProxyError saying so.
   */
  run<K extends JobKind>(kind: K, input: JobInput<K>, label: string): Promise<JobOutput<K>> {
    if (this.#closed) return Promise.reject(HostProxyError.io(`${label}: the parser is shut down`));
    return new Promise<JobOutput<K>>((resolve, reject) => {
      this.#queue.push({ kind, input, label, resolve: resolve as (v: unknown) => void, reject });
      this.#dispatch();
    });
  }

  /** Stops every worker; queued and running jobs fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(HostProxyError.io(`${job.label}: the parser is shut down`));
    await Promise.all([...this.#slots].map((slot) => this.#kill(slot, "the parser is shut down")));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = [...this.#slots].find((s) => s.job === undefined);
      if (slot === undefined && this.#slots.size < this.#size) slot = this.#spawn();
      if (slot === undefined) return;
      const job = this.#queue.shift() as Job;
      const id = this.#nextId++;
      const running = slot;
      // A worker without a thread clock holds the budget on the wall clock; one that has not yet
      // named its thread starts on the backstop, and its hello sets the budget (#hello).
      const wallMs = running.clock === null ? this.#cpuMs : this.#deadlineMs;
      const why = running.clock === null ? `took longer than ${this.#cpuMs} ms and was stopped` : `took longer than ${this.#deadlineMs} ms (wall clock) and was stopped`;
      const timer = setTimeout(() => void this.#kill(running, why), wallMs);
      const cpuAtStart = typeof running.clock === "string" ? (cpuTimeMs(running.clock) ?? 0) : 0;
      running.job = { ...job, id, timer, cpuAtStart };
      running.worker.ref();
      running.worker.postMessage({ id, kind: job.kind, input: job.input });
      this.#watchCpu(running);
    }
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_FILE, {
      env: {}, // nothing secret enters a parser
      execArgv: [],
      stdout: false,
      stderr: false,
      resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb },
    });
    const slot: Slot = { worker, job: undefined, clock: undefined, poll: undefined };
    worker.on("message", (reply: WorkerReply | WorkerHello) => ("hello" in reply ? this.#hello(slot, reply) : this.#settle(slot, reply)));
    worker.on("error", (error: Error & { code?: string }) => {
      const why = error.code === "ERR_WORKER_OUT_OF_MEMORY" ? `needed more than ${this.#maxHeapMb} MB to parse and was stopped` : `failed: ${error.message.slice(0, 200)}`;
      void this.#kill(slot, why);
    });
    worker.on("exit", () => void this.#kill(slot, "stopped unexpectedly"));
    worker.unref();
    this.#slots.add(slot);
    return slot;
  }

  /** The worker names its thread; a job it already runs is then held to the CPU budget from its start. */
  #hello(slot: Slot, hello: WorkerHello): void {
    slot.clock = hello.clock ?? null;
    const job = slot.job;
    if (job === undefined || slot.clock !== null) return this.#watchCpu(slot);
    // No clock on this machine: the job started on the backstop; the budget becomes wall time.
    clearTimeout(job.timer);
    job.timer = setTimeout(() => void this.#kill(slot, `took longer than ${this.#cpuMs} ms and was stopped`), this.#cpuMs);
  }

  #watchCpu(slot: Slot): void {
    const clock = slot.clock;
    if (slot.poll !== undefined || typeof clock !== "string" || slot.job === undefined) return;
    slot.poll = setInterval(() => {
      const job = slot.job;
      const now = cpuTimeMs(clock);
      if (job === undefined || now === undefined) return;
      if (now - job.cpuAtStart > this.#cpuMs) void this.#kill(slot, `needed more than ${this.#cpuMs} ms of CPU time to parse and was stopped`);
    }, this.#pollMs);
    slot.poll.unref();
  }

  #settle(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (job === undefined || job.id !== reply.id) return;
    clearTimeout(job.timer);
    clearInterval(slot.poll);
    slot.poll = undefined;
    slot.job = undefined;
    slot.worker.unref();
    if (reply.ok) job.resolve(reply.value);
    else if (reply.hostError !== undefined) job.reject(new HostProxyError(reply.hostError));
    else job.reject(HostProxyError.io(`${job.label}: could not be parsed: ${reply.message}`));
    this.#dispatch();
  }

  /** Ends a worker and fails its job; the next job gets a fresh worker. */
  async #kill(slot: Slot, why: string): Promise<void> {
    if (!this.#slots.delete(slot)) return;
    const job = slot.job;
    slot.job = undefined;
    clearInterval(slot.poll);
    slot.poll = undefined;
    if (job !== undefined) {
      clearTimeout(job.timer);
      job.reject(HostProxyError.io(`${job.label}: the input ${why}; it may be malformed or hostile`));
    }
    await slot.worker.terminate().catch(() => undefined);
    if (!this.#closed) this.#dispatch();
  }
}

let shared: ParsePool | undefined;

/** The process's pool, made on first use (its workers do not keep the process alive). */
export function sharedParsePool(): ParsePool {
  shared ??= new ParsePool();
  return shared;
}
