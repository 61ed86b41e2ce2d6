/**
 * The fs proxy's deny list (fs/sensitive-names.ts) inside shell mounts. bubblewrap binds a
 * mount whole, so without this `cat .env` or `cat .ssh/id_rsa` in a mounted folder would read
 * what `fs.read` refuses. Before each sandboxed run the mounts are walked (through the
 * descriptors opened at creation, never their paths) and every entry with a sensitive name is
 * covered in the sandbox: a file by a read-only bind of an empty file, a directory by an empty
 * tmpfs; nothing below a covered directory is walked. A hard link to a covered file under a
 * plain name is covered too (the fs proxy refuses files with a second name).
 *
 * The walk is bounded: past `maxEntries` the command is refused rather than run with a mount
 * only partly checked. Symlinks are neither followed nor covered: their target is reached by
 * its own name, which the walk judges where it lies (or it lies outside every mount, which
 * the sandbox does not show). A mount point of another mount is left to that mount's walk.
 * Covers are bound before the system layout in bwrap's argv (sandbox.ts), so a directory
 * swapped for a symlink after the walk can only hide something, never replace `/usr`.
 */
import { promises as fsp } from "node:fs";
import type { Dirent } from "node:fs";
import { posix } from "node:path";
import { sensitivePatterns } from "../fs/sensitive-names.js";
import { SHELL_DENIAL_REASONS as R, shellDenied } from "./reasons.js";
import type { OpenShellMount } from "./mounts.js";

/** Entries looked at across all mounts before a run is refused. */
export const DEFAULT_MAX_SCAN_ENTRIES = 100_000;

/** A sensitive entry to cover, by its guest path. */
export interface CoveredEntry {
  guest: string;
  kind: "file" | "directory";
}

export interface CoverOptions {
  /** Default `DEFAULT_MAX_SCAN_ENTRIES`. */
  maxEntries?: number | undefined;
}

/** Every sensitive entry in `mounts`, in walk order (parents before what they hold). */
export async function sensitiveEntries(mounts: readonly OpenShellMount[], options: CoverOptions = {}): Promise<CoveredEntry[]> {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_SCAN_ENTRIES;
  const otherMountPoints = new Set(mounts.map((m) => m.spec.guest));
  const covered: Array<CoveredEntry & { host: string }> = [];
  const plain: Array<{ host: string; guest: string }> = [];
  let seen = 0;
  for (const mount of mounts) {
    const queue: Array<{ host: string; guest: string }> = [{ host: `/proc/self/fd/${mount.root.fd}`, guest: mount.spec.guest }];
    for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
      const entries = await readDir(dir.host);
      seen += entries.length;
      if (seen > maxEntries) {
        throw shellDenied(
          R.sizeCap,
          `mount ${mount.spec.guest}: more than ${maxEntries} entries to check for sensitive names (.env, .ssh, *.pem, …); the command was not run. Mount a smaller folder`,
        );
      }
      for (const entry of entries) {
        const at = { host: posix.join(dir.host, entry.name), guest: posix.join(dir.guest, entry.name) };
        if (otherMountPoints.has(at.guest) || entry.isSymbolicLink()) continue;
        if (sensitivePatterns(entry.name).length > 0) covered.push({ ...at, kind: entry.isDirectory() ? "directory" : "file" });
        else if (entry.isDirectory()) queue.push(at);
        else if (entry.isFile()) plain.push(at);
      }
    }
  }
  const linked = await otherNames(covered, plain);
  return [...covered, ...linked].map(({ guest, kind }) => ({ guest, kind }));
}

/**
 * A sensitive file's other names (hard links) inside the mounts: the fs proxy refuses any file
 * with a second name, and here the content must not be readable under a plain one. Only when a
 * covered file has more than one link are the plain files stat'ed.
 */
async function otherNames(covered: ReadonlyArray<{ host: string; kind: string }>, plain: ReadonlyArray<{ host: string; guest: string }>): Promise<Array<CoveredEntry & { host: string }>> {
  const identities = new Set<string>();
  for (const c of covered) {
    if (c.kind !== "file") continue;
    const st = await fsp.lstat(c.host, { bigint: true }).catch(() => undefined);
    if (st !== undefined && st.nlink > 1n) identities.add(`${st.dev}:${st.ino}`);
  }
  if (identities.size === 0) return [];
  const found: Array<CoveredEntry & { host: string }> = [];
  for (const p of plain) {
    const st = await fsp.lstat(p.host, { bigint: true }).catch(() => undefined);
    if (st !== undefined && identities.has(`${st.dev}:${st.ino}`)) found.push({ ...p, kind: "file" });
  }
  return found;
}

/** A directory that vanished or cannot be read during the walk has nothing the command could read either. */
async function readDir(path: string): Promise<Dirent[]> {
  try {
    return await fsp.readdir(path, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") return [];
    throw err;
  }
}

/** bwrap arguments covering `entries`; `emptyFile` is a path bwrap can bind read-only (e.g. /dev/null). */
export function coverArgs(entries: readonly CoveredEntry[], emptyFile = "/dev/null"): string[] {
  return entries.flatMap((e) => (e.kind === "directory" ? ["--perms", "0500", "--tmpfs", e.guest] : ["--ro-bind", emptyFile, e.guest]));
}
