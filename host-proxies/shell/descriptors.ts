/**
 * Descriptors the runtime process holds without close-on-exec pass into every child: libuv
 * does not close them, and bwrap passes on what it inherits. One that names a host directory
 * would let a sandboxed command `openat(fd, "..")` out of the sandbox (the runc CVE-2016-9962
 * and CVE-2024-21626 class); a pipe or socket is a channel to whoever holds the other end. Node
 * opens its own with O_CLOEXEC, so what is found here was inherited from the runtime's parent
 * or opened by native code: each is covered with /dev/null at the same number in the child.
 */
import { readdir, readFile } from "node:fs/promises";

const O_CLOEXEC = 0o2000000;
/** Numbers above this are not masked (a stdio array that long would be absurd); see `maskingStdio`. */
export const MAX_MASKED_FD = 4096;

/** Open descriptors ≥ 3 of this process that a child would inherit. */
export async function inheritableDescriptors(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc/self/fd")) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd < 3) continue;
    // The directory listing's own descriptor is gone by now: no fdinfo, skipped.
    const info = await readFile(`/proc/self/fdinfo/${fd}`, "utf8").catch(() => undefined);
    const flags = info === undefined ? undefined : /^flags:\s+([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/**
 * The stdio entries after the first `used` ones that put `nullFd` over each inheritable
 * descriptor. Throws if one is beyond `MAX_MASKED_FD`: fail closed rather than leak it.
 */
export function maskingStdio(inheritable: readonly number[], used: number, nullFd: number): Array<number | "ignore"> {
  const masked = inheritable.filter((fd) => fd >= used);
  const last = masked[masked.length - 1];
  if (last === undefined) return [];
  if (last > MAX_MASKED_FD) throw new Error(`descriptor ${last} would be inherited by the command and is too high to mask`);
  const entries: Array<number | "ignore"> = [];
  for (let fd = used; fd <= last; fd++) entries.push(masked.includes(fd) ? nullFd : "ignore");
  return entries;
}
