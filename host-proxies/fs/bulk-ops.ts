/**
 * `walk` and `search` on the main thread: the proxy has canonicalised and decided the start;
 * this hands the bulk worker that canonical value and the mount roots, and turns its answer
 * into the WIT shapes (sizes as `u64` bigints). The worker's deadline is the job's own time cap
 * plus a grace for the cap's cooperative checks to answer first with a truncated result.
 */
import { HostProxyError } from "../types.js";
import { BulkDeadlineError, runBulkJob } from "./bulk-pool.js";
import type { BulkJob, FsSearchResult, FsWalkResult, SearchLimits, WalkLimits, WorkerSearchResult, WorkerWalkResult } from "./bulk/types.js";
import type { CanonicalFsPath } from "./types.js";

/** Past the time cap, how long a worker has to answer before it is terminated. */
export const DEADLINE_GRACE_MS = 2_000;

export interface BulkContext {
  mounts: BulkJob["mounts"];
  lifts: string[][];
}

export async function walkAt(at: CanonicalFsPath, limits: WalkLimits, context: BulkContext): Promise<FsWalkResult> {
  const value = (await run({ op: "walk", limits, ...job(at, context) }, limits.maxMillis)) as WorkerWalkResult;
  return { ...value, entries: value.entries.map((e) => ({ ...e, size: BigInt(e.size) })) };
}

export async function searchAt(at: CanonicalFsPath, limits: SearchLimits, context: BulkContext): Promise<FsSearchResult> {
  const value = (await run({ op: "search", limits, ...job(at, context) }, limits.maxMillis)) as WorkerSearchResult;
  return { ...value, bytesRead: BigInt(value.bytesRead) };
}

function job(at: CanonicalFsPath, context: BulkContext): Pick<BulkJob, "mounts" | "start" | "lifts"> {
  return { mounts: context.mounts, lifts: context.lifts, start: { mount: at.mount.index, segments: at.segments, guest: at.guest } };
}

async function run(job: Omit<BulkJob, "id">, maxMillis: number): Promise<unknown> {
  let reply;
  try {
    reply = await runBulkJob(job, { deadlineMs: maxMillis + DEADLINE_GRACE_MS });
  } catch (err) {
    if (err instanceof BulkDeadlineError) {
      throw HostProxyError.invalidInput(
        `fs.${job.op}: stopped after ${err.afterMs} ms without an answer (its time cap is ${maxMillis} ms)` +
          (job.op === "search" ? "; a regex that backtracks catastrophically, like (a+)+$, does this: simplify it or search in mode literal" : "; glob filters like *a*a*a*a*b backtrack: simplify them"),
      );
    }
    throw HostProxyError.io(`fs.${job.op}: ${(err as Error).message}`);
  }
  if (!reply.ok) throw new HostProxyError(reply.error);
  return reply.value;
}
