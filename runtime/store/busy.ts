import { StoreError } from "./errors.js";

/**
 * Runs `call` again while it fails `store_busy`, backing off (20 ms, doubling to 500 ms, with
 * jitter), until `busyTimeoutMs` has passed; then the last `store_busy` reaches the caller. For
 * what SQLite's own busy handler does not cover: a server's busy answer (client.ts) and a local
 * file's switch to WAL (open.ts). `stop` ends the waiting early (a store closed meanwhile).
 */
export async function retryWhileBusy<T>(call: () => Promise<T>, busyTimeoutMs: number, stop: () => boolean = () => false): Promise<T> {
  const deadline = Date.now() + busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof StoreError) || error.code !== "store_busy" || stop() || Date.now() >= deadline) throw error;
    }
    const pause = Math.min(500, 20 * 2 ** attempt) * (0.5 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(pause, deadline - Date.now()))));
  }
}
