/**
 * Bound guest calls queued in a worker behind another call. A worker runs one call at a time,
 * and a call that spins holds its worker until its deadline; one timer (running only while
 * there is something to watch) looks at each waiting call and has it moved to an idle worker
 * once the call ahead of it has run for a while.
 */
import type { Instance } from "./instance.js";
import type { WorkerTask } from "./protocol.js";

export interface QueuedCallsOptions {
  /** How long the call ahead must have run before the one behind it is moved (ms). */
  patienceMs: number;
  /** Moves `instance` to an idle worker, withdrawing `task`; false when no worker is idle. */
  offload: (instance: Instance, task: WorkerTask) => boolean;
}

export class QueuedCalls {
  #options: QueuedCallsOptions;
  #watched = new Map<WorkerTask, Instance>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: QueuedCallsOptions) {
    this.#options = options;
  }

  /** Watches `task` of `instance`; returns how to stop (call it when the call settles). */
  watch(instance: Instance, task: WorkerTask): () => void {
    this.#watched.set(task, instance);
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#sweep(), this.#options.patienceMs);
      this.#timer.unref();
    }
    return () => {
      this.#watched.delete(task);
      if (this.#watched.size === 0) this.close();
    };
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sweep(): void {
    for (const [task, instance] of this.#watched) {
      const worker = instance.worker;
      if (!worker.queues(task)) this.#watched.delete(task);
      else if (worker.callRunningMs >= this.#options.patienceMs && this.#options.offload(instance, task)) this.#watched.delete(task);
    }
  }
}
