/**
 * The shell proxy's mount table: checked, and each host directory opened once at creation.
 * The sandbox binds those open directories (`--bind-fd`), never their paths, so renaming a
 * mount's host directory or swapping it for a symlink later (possible when one mount's host
 * lies inside another, writable one) cannot change what a command sees — the Flatpak
 * CVE-2024-42472 class, where a path-based bind followed an attacker-planted symlink.
 *
 * Guest paths must not be, contain or sit under the directories the sandbox builds itself
 * (`/usr`, `/etc`, `/proc`, `/tmp`, …): a mount at `/usr/bin` would replace the binaries the
 * grant resolved, and one at `/` would put those directories inside a guest-writable tree.
 *
 * Before each sandboxed run `checkMountPoints` makes sure a nested mount's mount point, inside
 * the mount around it, is still a directory reached without symlinks: bwrap follows symlinks
 * in a destination path, and a guest that can write the outer mount could otherwise move the
 * inner one (see also the mount order in sandbox.ts).
 */
import { constants, promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { InvalidInputError } from "../../runtime/errors.js";
import { HostProxyError } from "../types.js";
import { checkMountHost, createMountHostGuard, hostRefusal } from "../fs/index.js";
import type { FsMount, MountHostGuard } from "../fs/index.js";

const SYSTEM_ONLY = createMountHostGuard({});

export const RESERVED_GUEST_ROOTS: readonly string[] = Object.freeze([
  "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/dev", "/tmp", "/sys", "/run",
]);

export interface OpenShellMount {
  spec: Readonly<FsMount>;
  /** The host directory, opened at creation; bound into the sandbox by descriptor. */
  root: FileHandle;
}

// eslint-disable-next-line no-control-regex -- the controls are exactly what we refuse
const BAD_SEGMENT = /[\u0000-\u001f\u007f\\]/;

/**
 * Throws `InvalidInputError` naming the first malformed or reserved mount, or one whose host is
 * a forbidden root (fs/forbidden-roots.ts; without `hostGuard` the fixed system roots).
 */
export function checkShellMounts(mounts: readonly FsMount[], hostGuard: MountHostGuard = SYSTEM_ONLY): void {
  const seen = new Set<string>();
  mounts.forEach((mount, index) => {
    const field = `mounts[${index}]`;
    const segments = mount.guest.split("/").slice(1);
    if (!mount.guest.startsWith("/") || segments.some((s) => s === "" || s === "." || s === ".." || BAD_SEGMENT.test(s))) {
      throw new InvalidInputError(`${field}.guest: must be a canonical absolute guest path like /work, got ${JSON.stringify(mount.guest)}`, { field: `${field}.guest` });
    }
    const reserved = RESERVED_GUEST_ROOTS.find((r) => mount.guest === r || mount.guest.startsWith(`${r}/`) || r.startsWith(`${mount.guest}/`) || mount.guest === "/");
    if (reserved !== undefined) {
      throw new InvalidInputError(`${field}.guest: ${mount.guest} overlaps ${reserved}, which the sandbox provides itself; mount it elsewhere (e.g. /work)`, { field: `${field}.guest` });
    }
    if (seen.has(mount.guest)) throw new InvalidInputError(`${field}.guest: ${mount.guest} is mounted twice`, { field: `${field}.guest` });
    seen.add(mount.guest);
    if (!isAbsolute(mount.host) || mount.host.includes("\0")) {
      throw new InvalidInputError(`${field}.host (${mount.guest}): must be an absolute host path`, { field: `${field}.host` });
    }
    const host = checkMountHost(mount.host, hostGuard);
    if (!host.ok) throw forbiddenHost(index, mount.guest, host.what);
    if (mount.mode !== "ro" && mount.mode !== "rw") {
      throw new InvalidInputError(`${field}.mode (${mount.guest}): must be "ro" or "rw"`, { field: `${field}.mode` });
    }
  });
}

/** Opens every mount's host directory; closes what it opened if one fails. */
export async function openShellMounts(mounts: readonly FsMount[], hostGuard: MountHostGuard | undefined = SYSTEM_ONLY): Promise<OpenShellMount[]> {
  checkShellMounts(mounts, hostGuard);
  const guard = hostGuard ?? SYSTEM_ONLY;
  const opened: OpenShellMount[] = [];
  try {
    for (const [index, mount] of mounts.entries()) {
      opened.push(await openOne(mount, index, guard));
    }
    return opened;
  } catch (err) {
    await Promise.all(opened.map((m) => m.root.close().catch(() => undefined)));
    throw err;
  }
}

function forbiddenHost(index: number, guest: string, what: string): InvalidInputError {
  const field = `mounts[${index}].host`;
  return new InvalidInputError(`${field} (${guest}): refused: the host directory is, contains or lies inside ${what}`, { field });
}

async function openOne(mount: FsMount, index: number, hostGuard: MountHostGuard): Promise<OpenShellMount> {
  const field = `mounts[${index}].host`;
  let root: FileHandle;
  try {
    root = await fsp.open(mount.host, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    throw new InvalidInputError(`${field} (${mount.guest}): host directory cannot be opened`, { field, cause: err });
  }
  let real: string;
  try {
    // Without the sandbox, the directory is found again through this path at each run.
    real = await fsp.realpath(`/proc/self/fd/${root.fd}`);
  } catch (err) {
    await root.close();
    throw new InvalidInputError(`${field} (${mount.guest}): /proc/self/fd is not usable here`, { field, cause: err });
  }
  // Decided again on what was opened: a symlink swapped in since the check is caught here.
  const refusal = hostRefusal(real, hostGuard.roots);
  if (refusal !== undefined) {
    await root.close();
    throw forbiddenHost(index, mount.guest, refusal.what);
  }
  return { spec: Object.freeze({ ...mount }), root };
}

/** Refuses (`io`) a run whose nested mount point has become a symlink or a non-directory. */
export async function checkMountPoints(mounts: readonly OpenShellMount[]): Promise<void> {
  for (const inner of mounts) {
    const outer = closestParent(inner, mounts);
    if (outer === undefined) continue;
    const rest = inner.spec.guest.slice(outer.spec.guest === "/" ? 1 : outer.spec.guest.length + 1).split("/");
    let at = `/proc/self/fd/${outer.root.fd}`;
    for (const segment of rest) {
      at = `${at}/${segment}`;
      const stats = await fsp.lstat(at).catch(() => undefined);
      if (stats === undefined) break; // bwrap creates it, inside the outer mount
      if (stats.isSymbolicLink() || !stats.isDirectory()) {
        throw HostProxyError.io(`mount ${inner.spec.guest}: its mount point inside ${outer.spec.guest} is no longer a directory (a symlink or file was put there); the command was not run`);
      }
    }
  }
}

function closestParent(inner: OpenShellMount, mounts: readonly OpenShellMount[]): OpenShellMount | undefined {
  let best: OpenShellMount | undefined;
  for (const m of mounts) {
    if (m === inner || !inner.spec.guest.startsWith(`${m.spec.guest}/`)) continue;
    if (best === undefined || m.spec.guest.length > best.spec.guest.length) best = m;
  }
  return best;
}
