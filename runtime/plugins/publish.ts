import { randomBytes } from "node:crypto";
import { cp, mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Publishes the folder `from` as `to` atomically: a reader sees either no folder or a complete
 * one. Folders are named by content key, so when another process published `to` first (tests
 * run in parallel) its folder is kept and ours dropped; `replace` swaps out a stale one.
 */
export async function publishDir(from: string, to: string, options: { replace?: boolean } = {}): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const staging = `${to}.${randomBytes(6).toString("hex")}.tmp`;
  await cp(from, staging, { recursive: true });
  try {
    if (options.replace) await rm(to, { recursive: true, force: true });
    await rename(staging, to);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
}
