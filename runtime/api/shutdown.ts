import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "./auth/index.js";
import { ApiError } from "./middleware/index.js";

/**
 * The API's side of a server stopping (SIGTERM): requests that would otherwise wait for work
 * the stop is about to leave (`POST /v1/runs?wait=true`) are told at once, with an answer they
 * can act on, and the server waits — bounded — for every request in flight to be answered
 * before it closes the connections. Without it, closing the connections cut such a request off
 * with no answer at all.
 */
export class ApiShutdown {
  #begin: () => void = () => undefined;
  #stopping = false;
  #inFlight = 0;
  #idle: Array<() => void> = [];
  /** Resolves when the stop begins. */
  readonly stopping: Promise<void> = new Promise<void>((resolve) => (this.#begin = resolve));

  get isStopping(): boolean {
    return this.#stopping;
  }

  /** The stop begins: waiting requests answer now. */
  begin(): void {
    this.#stopping = true;
    this.#begin();
  }

  /** Counts the requests in flight, so `drained` knows when each has been answered. */
  track(): MiddlewareHandler<ApiEnv> {
    return async (_c, next) => {
      this.#inFlight++;
      try {
        await next();
      } finally {
        this.#inFlight--;
        if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
      }
    };
  }

  /** Resolves true once no request is in flight, false if `ms` passed first. */
  drained(ms: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      timer.unref?.();
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/**
 * 503 `server_stopping`: a `wait=true` run whose server began to stop before the run ended or
 * waited for a person. The run is not lost: this node lets go of it as it closes, and another
 * node (or this one, restarted) takes it over; `Location` and `details.run_id` say where to
 * follow it.
 */
export class ServerStoppingError extends ApiError {
  readonly details: { run_id: string; location: string };

  constructor(runId: string) {
    const location = `/v1/runs/${runId}`;
    super(
      "server_stopping",
      `the server is stopping before run ${runId} ended; the run is kept in the store and continues on another node or when this one restarts: follow it at ${location} (on any node)`,
      { status: 503, headers: { Location: location, "Retry-After": "5" } },
    );
    this.details = { run_id: runId, location };
  }
}

/**
 * Waits for a `wait=true` run to settle, unless the server begins to stop first: then it throws
 * `ServerStoppingError` at once, since closing would otherwise cut the request off unanswered.
 */
export async function untilSettled(settled: Promise<unknown>, runId: string, shutdown: ApiShutdown | undefined): Promise<void> {
  if (shutdown === undefined) {
    await settled;
    return;
  }
  const first = await Promise.race([settled.then(() => "settled" as const), shutdown.stopping.then(() => "stopping" as const)]);
  if (first === "stopping") {
    settled.catch(() => undefined);
    throw new ServerStoppingError(runId);
  }
}
