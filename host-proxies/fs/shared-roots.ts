/**
 * Mount roots opened once and shared by the proxies of later runs. Opening a root (open, fstat,
 * a /proc check, realpath, close) was a fixed cost of every run's fs proxy. A root is reused
 * only while its host path still leads to the very directory the handle holds (same device
 * and inode, checked with one stat at each reuse), and the forbidden-roots decision is made
 * again on where that directory is now; otherwise a fresh root is opened. So each proxy is
 * still bound to the directory its host path named when it was created ("fixed at creation").
 * A held directory's inode cannot be reused by another directory while the handle is open.
 */
import { realpathSync, statSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { procDir } from "./dir-walk.js";

/** Roots kept open with no proxy using them (the least recently released are closed first). */
export const IDLE_ROOTS_MAX = 64;

interface SharedRoot {
  host: string;
  handle: FileHandle;
  dev: bigint;
  ino: bigint;
  users: number;
  /** Replaced in the table by a newer root of the same host path: closed when its last user leaves. */
  detached: boolean;
}

export interface LeasedRoot {
  handle: FileHandle;
  /** Hands the root back; closes it when it is no longer shared or too many are idle. */
  release: () => Promise<void>;
}

const table = new Map<string, SharedRoot>();

/**
 * The shared root of `host` when its path still leads to it; `undefined` when there is none or
 * the path now leads elsewhere (the stale root is then detached). `recheck` decides on the real
 * path of the directory the handle holds, as opening does (forbidden roots), and throws to
 * refuse it.
 *
 * Synchronous: the two checks are one `stat` and one `realpath` of a directory the runtime
 * already holds open, a few microseconds each, where their promise round trips through the
 * thread pool cost tens (measured: ~90 µs against ~26 µs of CPU per lease).
 */
export function leaseShared(host: string, recheck: (real: string) => void): LeasedRoot | undefined {
  const entry = table.get(host);
  if (entry === undefined) return undefined;
  let now: ReturnType<typeof statSync>;
  try {
    now = statSync(host, { bigint: true, throwIfNoEntry: false });
  } catch {
    now = undefined;
  }
  if (now === undefined || !now.isDirectory() || now.dev !== entry.dev || now.ino !== entry.ino) {
    detach(entry);
    if (entry.users === 0) void entry.handle.close().catch(() => undefined);
    return undefined;
  }
  recheck(realpathSync.native(procDir(entry.handle)));
  entry.users++;
  return { handle: entry.handle, release: () => release(entry) };
}

/** Shares a root just opened (and checked) for `host`; the caller holds the first lease. */
export async function share(host: string, handle: FileHandle): Promise<LeasedRoot> {
  const stat = await handle.stat({ bigint: true });
  const entry: SharedRoot = { host, handle, dev: stat.dev, ino: stat.ino, users: 1, detached: false };
  const previous = table.get(host);
  if (previous !== undefined) detach(previous);
  table.set(host, entry);
  if (previous !== undefined && previous.users === 0) await previous.handle.close().catch(() => undefined);
  return { handle, release: () => release(entry) };
}

function detach(entry: SharedRoot): void {
  if (table.get(entry.host) === entry) table.delete(entry.host);
  entry.detached = true;
}

async function release(entry: SharedRoot): Promise<void> {
  entry.users--;
  if (entry.users > 0) return;
  if (entry.detached) {
    await entry.handle.close().catch(() => undefined);
    return;
  }
  // Most recently released last, so the oldest idle roots are closed first.
  table.delete(entry.host);
  table.set(entry.host, entry);
  let idle = [...table.values()].filter((e) => e.users === 0);
  while (idle.length > IDLE_ROOTS_MAX) {
    const oldest = idle.shift()!;
    detach(oldest);
    await oldest.handle.close().catch(() => undefined);
  }
}

/** Closes every idle shared root (a runtime closing, a test checking for leaked handles). */
export async function closeIdleRoots(): Promise<void> {
  for (const entry of [...table.values()]) {
    if (entry.users > 0) continue;
    detach(entry);
    await entry.handle.close().catch(() => undefined);
  }
}
