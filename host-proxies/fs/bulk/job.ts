/** Runs one bulk job in the worker; every failure becomes the `host-error` the guest sees. */
import { HostProxyError } from "../../types.js";
import { toHostProxyError } from "../os-errors.js";
import type { OpenFds } from "./fds.js";
import { runSearch } from "./search-op.js";
import type { BulkJob, BulkReply } from "./types.js";
import { runWalk } from "./walk-op.js";

export function runJob(job: BulkJob, fds: OpenFds): BulkReply {
  try {
    const value = job.op === "walk" ? runWalk(job, fds) : runSearch(job, fds);
    return { id: job.id, ok: true, value };
  } catch (err) {
    // Only errno errors and the proxy's own are worded for the guest; anything else is internal.
    const known = err instanceof HostProxyError || (typeof err === "object" && err !== null && "code" in err);
    const error = known ? toHostProxyError(err, job.op === "walk" ? "list" : "read", job.start.guest) : HostProxyError.io(`${job.start.guest}: fs.${job.op} failed inside the host`);
    return { id: job.id, ok: false, error: error.hostError };
  }
}
