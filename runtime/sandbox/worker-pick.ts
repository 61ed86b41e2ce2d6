/**
 * Where an instance goes: which live worker takes a new instantiation, and which pooled
 * instance serves a run's first call. Both prefer workers free of guest calls, since a call
 * that spins may hold its worker until its deadline.
 */
import type { Instance } from "./instance.js";
import type { WorkerHandle } from "./worker-handle.js";

/** The least busy live worker, away from `avoid` when another is alive; undefined when none is. */
export function pickWorker(workers: readonly WorkerHandle[], avoid?: WorkerHandle): WorkerHandle | undefined {
  const all = workers.filter((w) => w.alive);
  if (all.length === 0) return undefined;
  const others = all.filter((w) => w !== avoid);
  const alive = others.length > 0 ? others : all;
  // A worker running a guest call may be held by it until its deadline (one that spins): an
  // instantiation queued there would wait as long, so workers free of calls come first.
  // Among busy ones, the call running longest is the likeliest to hold its worker longest.
  const rank = (w: WorkerHandle) => [w.busyWithCalls ? 1 : 0, w.callRunningMs > 50 ? 1 : 0, w.load, w.callRunningMs, w.instanceIds.size];
  return alive.reduce((best, w) => (compareRanks(rank(w), rank(best)) < 0 ? w : best));
}

/**
 * Takes from `pool` the ready instance whose worker is least busy: a worker refilling the pool
 * is busy for an instantiation (~3 ms), and a first call queued behind that would wait for it.
 * Undefined when a fresh instance on an idle worker would serve sooner.
 */
export function takePooled(pool: Instance[], workers: readonly WorkerHandle[]): Instance | undefined {
  // A pooled instance on a busy worker would queue behind that worker's call (perhaps another
  // run's, spinning until its deadline) while a worker sits idle: make one there instead.
  const free = (w: WorkerHandle) => w.alive && !w.busyWithCalls;
  if (workers.some(free) && !pool.some((i) => i.state === "ready" && free(i.worker))) return undefined;
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

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
