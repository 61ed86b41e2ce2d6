import { mkdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Makes the folders of `path` (relative, `/`-separated) below `base`, each that is missing, and
 * never `base` itself or anything above it. A build's folder can be removed while one of its
 * jobs still writes (its child leaving, its parent gone): a recursive `mkdir` finishing after
 * that removal would make the whole chain again and leave it behind. This fails with ENOENT
 * instead.
 */
export async function mkdirWithin(base: string, path: string): Promise<void> {
  let at = base;
  for (const part of path.split(/[\\/]/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") throw new Error(`mkdirWithin: ${path} leaves ${base}`);
    at = join(at, part);
    try {
      await mkdir(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
