/**
 * A small pool of worker threads for parsing untrusted bytes (iCalendar expansion, MIME, HTML)
 * whose libraries cannot be bounded from outside: a job runs in a worker under a deadline and
 * a heap cap, and a worker past its deadline is terminated and replaced, so a hostile file
 * costs one job a clear error and never stalls the main thread. Workers stay warm between
 * jobs and hold the event loop only while they work.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { HostProxyError } from "../types.js";
import type { JobKind, JobInput, JobOutput, WorkerReply } from "./protocol.js";

// Named from dist/, not from this file: the command line's bundle (dist/runtime/cli-bundle/) holds
// this code too, at the same depth.
const WORKER_FILE = new URL("../../host-proxies/_parse/worker.js", import.meta.url);

export interface ParsePoolOptions {
  /** Workers at most; default 2 (or fewer cores). */
  size?: number;
  /** How long one job may run before its worker is killed (ms); default 10 000. */
  deadlineMs?: number;
  /** JS heap of one worker (MB); default 512. */
  maxHeapMb?: number;
}

export const PARSE_LIMITS = { deadlineMs: 10_000, maxHeapMb: 512 } as const;

interface Job {
  kind: JobKind;
  input: unknown;
  label: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: (Job & { id: number; timer: NodeJS.Timeout }) | undefined;
}

export class ParsePool {
  readonly #size: number;
  readonly #deadlineMs: number;
  readonly #maxHeapMb: number;
  readonly #slots = new Set<Slot>();
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: ParsePoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? Math.min(2, availableParallelism()));
    this.#deadlineMs = options.deadlineMs ?? PARSE_LIMITS.deadlineMs;
    this.#maxHeapMb = options.maxHeapMb ?? PARSE_LIMITS.maxHeapMb;
  }

  get deadlineMs(): number {
    return this.#deadlineMs;
  }

  /**
   * Runs one job off the main thread. `label` names the input in errors ("calendar work").
   * A HostProxyError thrown by the job arrives as itself; a job past its deadline or out of
   * memory is an `io` HostProxyError saying so.
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
      const timer = setTimeout(() => void this.#kill(slot as Slot, `took longer than ${this.#deadlineMs} ms and was stopped`), this.#deadlineMs);
      slot.job = { ...job, id, timer };
      slot.worker.ref();
      slot.worker.postMessage({ id, kind: job.kind, input: job.input });
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
    const slot: Slot = { worker, job: undefined };
    worker.on("message", (reply: WorkerReply) => this.#settle(slot, reply));
    worker.on("error", (error: Error & { code?: string }) => {
      const why = error.code === "ERR_WORKER_OUT_OF_MEMORY" ? `needed more than ${this.#maxHeapMb} MB to parse and was stopped` : `failed: ${error.message.slice(0, 200)}`;
      void this.#kill(slot, why);
    });
    worker.on("exit", () => void this.#kill(slot, "stopped unexpectedly"));
    worker.unref();
    this.#slots.add(slot);
    return slot;
  }

  #settle(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (job === undefined || job.id !== reply.id) return;
    clearTimeout(job.timer);
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
