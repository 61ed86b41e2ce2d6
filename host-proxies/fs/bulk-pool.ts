/**
 * The workers that run walks and searches (bulk/worker.ts): a few per process, shared by every
 * proxy, started on first use, never holding the process open. A job runs under a hard
 * deadline: a worker still busy when it passes (a regex backtracking catastrophically inside
 * one file, a filesystem that stalls) is terminated, the descriptors it left open are closed,
 * and the job fails; the next job gets a fresh worker. These are not the sandbox's plugin
 * workers: no guest code ever runs here.
 */
import { Worker } from "node:worker_threads";
import { closeLeftOpen, fdSlotTable } from "./bulk/fds.js";
import type { BulkJob, BulkReply } from "./bulk/types.js";

// This file sits two levels below dist/ both compiled (dist/host-proxies/fs/) and bundled
// (dist/runtime/cli-bundle/), so one relative URL finds the compiled worker from either.
const WORKER_FILE = new URL("../../host-proxies/fs/bulk/worker.js", import.meta.url);

/** Workers at most; further jobs wait their turn. */
export const BULK_WORKERS = 2;

/** The job outlived its deadline and its worker was terminated. */
export class BulkDeadlineError extends Error {
  constructor(readonly afterMs: number) {
    super(`bulk job stopped after ${afterMs} ms`);
    this.name = "BulkDeadlineError";
  }
}

interface Pending {
  job: Omit<BulkJob, "id">;
  deadlineMs: number;
  resolve: (reply: BulkReply) => void;
  reject: (error: Error) => void;
}

class BulkWorker {
  readonly #worker: Worker;
  readonly #slots = fdSlotTable();
  #current: (Pending & { id: number; timer: NodeJS.Timeout }) | undefined;
  #nextId = 1;
  dead = false;

  constructor(readonly onIdle: (worker: BulkWorker) => void) {
    this.#worker = new Worker(WORKER_FILE, { workerData: { slots: this.#slots }, env: {}, execArgv: [] });
    this.#worker.on("message", (reply: BulkReply) => this.#finish(reply));
    this.#worker.on("error", (error) => this.#fail(new Error(`bulk worker crashed: ${error.message}`)));
    this.#worker.on("exit", (code) => this.#fail(new Error(`bulk worker exited with code ${code}`)));
    // After the listeners: adding a `message` listener refs the worker's port again.
    this.#worker.unref();
  }

  get busy(): boolean {
    return this.#current !== undefined;
  }

  start(pending: Pending): void {
    const id = this.#nextId++;
    const timer = setTimeout(() => void this.#kill(), pending.deadlineMs);
    this.#current = { ...pending, id, timer };
    this.#worker.postMessage({ ...pending.job, id });
  }

  #finish(reply: BulkReply): void {
    const current = this.#current;
    if (current === undefined || reply.id !== current.id) return;
    clearTimeout(current.timer);
    this.#current = undefined;
    current.resolve(reply);
    this.onIdle(this);
  }

  async #kill(): Promise<void> {
    const current = this.#current;
    this.dead = true;
    this.#current = undefined;
    await this.#worker.terminate().catch(() => undefined);
    closeLeftOpen(this.#slots);
    current?.reject(new BulkDeadlineError(current.deadlineMs));
    this.onIdle(this);
  }

  #fail(error: Error): void {
    if (this.dead) return;
    this.dead = true;
    const current = this.#current;
    this.#current = undefined;
    if (current !== undefined) clearTimeout(current.timer);
    closeLeftOpen(this.#slots);
    current?.reject(error);
    this.onIdle(this);
  }
}

const workers = new Set<BulkWorker>();
const queue: Pending[] = [];

function onIdle(worker: BulkWorker): void {
  if (worker.dead) workers.delete(worker);
  dispatch();
}

function dispatch(): void {
  while (queue.length > 0) {
    let idle = [...workers].find((w) => !w.busy && !w.dead);
    if (idle === undefined && workers.size < BULK_WORKERS) {
      idle = new BulkWorker(onIdle);
      workers.add(idle);
    }
    if (idle === undefined) return;
    idle.start(queue.shift()!);
  }
}

/**
 * Runs `job` on a bulk worker; rejects with `BulkDeadlineError` when it has not answered
 * `deadlineMs` after it started.
 */
export function runBulkJob(job: Omit<BulkJob, "id">, options: { deadlineMs: number }): Promise<BulkReply> {
  return new Promise((resolve, reject) => {
    queue.push({ job, deadlineMs: options.deadlineMs, resolve, reject });
    dispatch();
  });
}
