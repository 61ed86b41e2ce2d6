/**
 * A parse worker: runs one job at a time for the pool. Job modules are loaded on first use,
 * so a worker that only ever reads calendars never loads mailparser.
 */
import { parentPort } from "node:worker_threads";
import { HostProxyError } from "../types.js";
import type { JobKind, JobRequest, WorkerHello, WorkerReply } from "./protocol.js";
import { ownThreadClock } from "./thread-clock.js";

type Run = (input: never) => unknown;

const JOBS: Record<JobKind, () => Promise<Run>> = {
  "calendar.events": async () => (await import("../calendar/ics/parse-job.js")).calendarEventsJob as Run,
  "mail.content": async () => (await import("../gmail/parse-job.js")).mailContentJob as Run,
  "mail.text": async () => (await import("../gmail/parse-job.js")).mailTextJob as Run,
};

async function answer(request: JobRequest): Promise<WorkerReply> {
  try {
    const run = await JOBS[request.kind]();
    return { id: request.id, ok: true, value: await run(request.input as never) };
  } catch (error) {
    if (error instanceof HostProxyError) return { id: request.id, ok: false, message: error.message, hostError: error.hostError };
    return { id: request.id, ok: false, message: error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300) };
  }
}

// Named from this thread: only here does `/proc/thread-self` mean the thread that parses.
parentPort?.postMessage({ hello: true, clock: ownThreadClock() } satisfies WorkerHello);

parentPort?.on("message", (request: JobRequest) => {
  void answer(request).then((reply) => parentPort?.postMessage(reply));
});
