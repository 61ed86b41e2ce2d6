/**
 * Checks the mount table and opens one directory handle per mount root. The handles are taken
 * once, at creation: if a host directory is later renamed or replaced, the instance keeps
 * serving the directory it was bound to ("fixed at creation", DESIGN.md).
 *
 * Errors name the mount by index and guest path, never by its host path: the operator knows
 * their own table, and the same messages must be safe to show wherever they end up.
 */
import { constants, promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { ClawhiveError, InvalidInputError } from "../../runtime/errors.js";
import { guestSegments, joinGuest, segmentProblem } from "./canonicalize.js";
import { procDir } from "./dir-walk.js";
import { hostRefusal } from "./forbidden-roots.js";
import { checkMountHost, createMountHostGuard } from "./host-path.js";
import type { MountHostGuard } from "./host-path.js";
import { errnoCode } from "./os-errors.js";
import type { FsMount } from "./types.js";
import { leaseShared, share } from "./shared-roots.js";

export interface OpenMountsOptions {
  /** The runtime's forbidden roots; without it the fixed system roots (`/proc`, `/etc`, …) still apply. */
  hostGuard?: MountHostGuard | undefined;
}

const SYSTEM_ONLY = createMountHostGuard({});

export interface OpenMount {
  spec: Readonly<FsMount>;
  root: FileHandle;
  /** Hands the root back (see shared-roots.ts); the proxy calls it once, when nothing uses the root. */
  release: () => Promise<void>;
}

/** Validates `mounts` and opens their roots; closes what it opened if any mount fails. */
export async function openMounts(mounts: readonly FsMount[], options: OpenMountsOptions = {}): Promise<OpenMount[]> {
  const guard = options.hostGuard ?? SYSTEM_ONLY;
  if (process.platform !== "linux") {
    // The race-free walk needs /proc/self/fd (dir-walk.ts); without it, fail closed.
    throw new ClawhiveError("fs_unsupported_platform", "fs proxy: needs Linux (/proc/self/fd); this platform has no safe substitute");
  }
  // A table checked before (the same agent's next run) is not walked again: what could have
  // changed since is the host paths, and each is decided again below on what it leads to now.
  const known = checkedTables(guard);
  const key = tableKey(mounts);
  const checked = key !== undefined && known.has(key);
  if (!checked) checkMountTable(mounts, guard);
  const opened: OpenMount[] = [];
  try {
    for (const [index, mount] of mounts.entries()) {
      const recheck = (real: string) => decideOpened(real, mount, index, guard);
      let leased = leaseShared(mount.host, recheck);
      if (leased === undefined) {
        // Opened afresh: a path that no longer leads to the shared root gets the whole check.
        if (checked) checkMountHostAt(mount, index, guard);
        leased = await share(mount.host, await openRoot(mount, index, guard));
      }
      opened.push({ spec: Object.freeze({ ...mount }), root: leased.handle, release: leased.release });
    }
    if (key !== undefined && !checked) remember(known, key);
    return opened;
  } catch (err) {
    await Promise.all(opened.map((m) => m.release().catch(() => undefined)));
    throw err;
  }
}

/** Mount tables that passed `checkMountTable`, per guard (its forbidden roots), most recent last. */
const CHECKED_TABLES_MAX = 256;
const checkedByGuard = new WeakMap<MountHostGuard, Set<string>>();

function checkedTables(guard: MountHostGuard): Set<string> {
  let known = checkedByGuard.get(guard);
  if (known === undefined) checkedByGuard.set(guard, (known = new Set()));
  return known;
}

function remember(known: Set<string>, key: string): void {
  known.add(key);
  if (known.size > CHECKED_TABLES_MAX) known.delete(known.values().next().value!);
}

/** The table as its checks read it; undefined for one that is not plain strings (never cached). */
function tableKey(mounts: readonly FsMount[]): string | undefined {
  if (!Array.isArray(mounts)) return undefined;
  const parts: string[] = [];
  for (const mount of mounts) {
    if (typeof mount !== "object" || mount === null || typeof mount.guest !== "string" || typeof mount.host !== "string" || typeof mount.mode !== "string") return undefined;
    parts.push(mount.guest, mount.host, mount.mode);
  }
  return JSON.stringify(parts);
}

/** The host path's own check of `checkMountTable`, for one mount of a table checked before. */
function checkMountHostAt(mount: FsMount, index: number, guard: MountHostGuard): void {
  const refused = checkMountHost(mount.host, guard);
  if (!refused.ok) throw forbiddenHost(index, mount.guest, refused.what);
}

function checkMountTable(mounts: readonly FsMount[], guard: MountHostGuard): void {
  if (!Array.isArray(mounts)) throw new InvalidInputError("mounts: expected an array", { field: "mounts" });
  const seen = new Set<string>();
  mounts.forEach((mount, index) => {
    const field = `mounts[${index}]`;
    if (typeof mount !== "object" || mount === null) throw new InvalidInputError(`${field}: expected an object`, { field });
    const guest: unknown = mount.guest;
    if (typeof guest !== "string" || !isCanonicalGuest(guest)) {
      throw new InvalidInputError(
        `${field}.guest: must be a canonical absolute guest path like /work (no trailing '/', '.', '..' or empty segments), got ${JSON.stringify(guest)}`,
        { field: `${field}.guest` },
      );
    }
    if (seen.has(guest)) throw new InvalidInputError(`${field}.guest: ${guest} is mounted twice`, { field: `${field}.guest` });
    seen.add(guest);
    const host: unknown = mount.host;
    if (typeof host !== "string" || !isAbsolute(host) || host.includes("\0")) {
      throw new InvalidInputError(`${field}.host (${guest}): must be an absolute host path`, { field: `${field}.host` });
    }
    const refused = checkMountHost(host, guard);
    if (!refused.ok) throw forbiddenHost(index, guest, refused.what);
    if (mount.mode !== "ro" && mount.mode !== "rw") {
      throw new InvalidInputError(`${field}.mode (${guest}): must be "ro" or "rw"`, { field: `${field}.mode` });
    }
  });
}

function isCanonicalGuest(guest: string): boolean {
  const segments = guestSegments(guest);
  return (
    joinGuest(segments) === guest &&
    segments.every((s) => s !== "." && s !== ".." && segmentProblem(s) === undefined)
  );
}

const OPEN_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "host directory does not exist",
  ENOTDIR: "host path is not a directory",
  EACCES: "host directory is not readable by the runtime",
  ELOOP: "host path has a symlink loop",
};

/** Names the root that was hit but, like every error here, not the host path. */
function forbiddenHost(index: number, guest: string, what: string): InvalidInputError {
  const field = `mounts[${index}].host`;
  return new InvalidInputError(`${field} (${guest}): refused: the host directory is, contains or lies inside ${what}`, { field });
}

async function openRoot(mount: FsMount, index: number, guard: MountHostGuard): Promise<FileHandle> {
  const field = `mounts[${index}].host`;
  let root: FileHandle;
  try {
    // The host path is the operator's, so symlinks in it are followed, once, here.
    root = await fsp.open(mount.host, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    const code = errnoCode(err);
    const why = (code === undefined ? undefined : OPEN_ERRORS[code]) ?? `host directory cannot be opened (${code ?? "unknown"})`;
    throw new InvalidInputError(`${field} (${mount.guest}): ${why}`, { field });
  }
  try {
    await assertProcWorks(root);
    await checkOpened(root, mount, index, guard);
    return root;
  } catch (err) {
    await root.close();
    throw err;
  }
}

/** Decided again on what was opened: a symlink swapped in since the check is caught here. */
async function checkOpened(root: FileHandle, mount: FsMount, index: number, guard: MountHostGuard): Promise<void> {
  decideOpened(await fsp.realpath(procDir(root)), mount, index, guard);
}

function decideOpened(real: string, mount: FsMount, index: number, guard: MountHostGuard): void {
  const refusal = hostRefusal(real, guard.roots);
  if (refusal !== undefined) throw forbiddenHost(index, mount.guest, refusal.what);
}

/** /proc may be missing or masked (some containers): then the walk would not be race-free. */
async function assertProcWorks(root: FileHandle): Promise<void> {
  const [viaFd, viaProc] = await Promise.all([
    root.stat({ bigint: true }),
    fsp.stat(procDir(root), { bigint: true }).catch(() => undefined),
  ]);
  if (viaProc === undefined || viaProc.ino !== viaFd.ino || viaProc.dev !== viaFd.dev) {
    throw new ClawhiveError("fs_unsupported_platform", "fs proxy: /proc/self/fd is not usable here; mount procfs to use the fs proxy");
  }
}
