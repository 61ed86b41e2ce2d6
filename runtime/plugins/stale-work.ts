import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** The temp folders a plugin build and a compile work in (build.ts, compile.ts). */
const WORK_PREFIXES = ["clawhive-build-", "clawhive-compile-"];

/** Older than this, a work folder belongs to no live build: a build takes minutes at most. */
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/**
 * Removes the work folders a build or compile left in `dir` when it was killed (a SIGKILL skips
 * the `finally` that removes them): folders with those names, last changed more than six hours
 * ago, owned by this process's user. A symlink or a file of that name is left
 * alone, and so is anything that cannot be read or removed. Returns how many were removed.
 */
export async function sweepStaleWork(dir: string): Promise<number> {
  const before = Date.now() - STALE_AFTER_MS;
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!WORK_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const path = join(dir, name);
    try {
      const stat = await lstat(path);
      if (!stat.isDirectory() || stat.mtimeMs >= before || (uid !== undefined && stat.uid !== uid)) continue;
      await rm(path, { recursive: true, force: true });
      removed++;
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

let swept: Promise<number> | undefined;

/** `sweepStaleWork` on the system temp folder, once per process, in the background. */
export function sweepStaleWorkOnce(tmp: string): void {
  swept ??= sweepStaleWork(tmp).catch(() => 0);
}
