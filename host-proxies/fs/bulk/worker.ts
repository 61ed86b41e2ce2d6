/**
 * The bulk worker: runs walks and searches off the main thread, one at a time, synchronously.
 * It holds no grant or policy: each job arrives canonical and decided, with the descriptors of
 * the mount roots the proxy holds open. The main thread terminates it at the job's deadline.
 */
import { parentPort, workerData } from "node:worker_threads";
import { OpenFds } from "./fds.js";
import { runJob } from "./job.js";
import type { BulkJob } from "./types.js";

const fds = new OpenFds((workerData as { slots: SharedArrayBuffer }).slots);
parentPort?.on("message", (job: BulkJob) => parentPort?.postMessage(runJob(job, fds)));
