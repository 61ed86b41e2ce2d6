/**
 * list-dir, stat, remove and mkdir, acting only through directory handles (dir-walk.ts).
 * Callers have already canonicalised and decided the path; raw OS errors are thrown and mapped
 * to guest-worded errors by the caller.
 */
import { promises as fsp } from "node:fs";
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { decodeName } from "./entry-rules.js";
import { errnoCode } from "./os-errors.js";
import { lstatAt, procDir, procPath, withDirAt } from "./dir-walk.js";
import { splitLast } from "./file-ops.js";
import { FS_DENIAL_REASONS, fsDenied } from "./reasons.js";
import type { CanonicalFsPath, FsEntry, FsEntryKind, FsStat } from "./types.js";

// lstat this many entries at once: enough to keep the threadpool busy, few enough to share it.
const LSTAT_BATCH = 32;

export interface ListOptions {
  /** Names the guest must not see (sensitive, or not addressable as a guest path). */
  hide: (name: string) => boolean;
}

export async function listAt(root: FileHandle, path: CanonicalFsPath, options: ListOptions): Promise<FsEntry[]> {
  return withDirAt(root, path.segments, async (dir) => {
    const raw = await fsp.readdir(procDir(dir), { encoding: "buffer" });
    const names = raw.map(decodeName).filter((n): n is string => n !== undefined && !options.hide(n));
    const entries: FsEntry[] = [];
    for (let i = 0; i < names.length; i += LSTAT_BATCH) {
      const batch = await Promise.all(names.slice(i, i + LSTAT_BATCH).map((name) => entryAt(dir, name)));
      for (const entry of batch) if (entry !== undefined) entries.push(entry);
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  });
}

/** Symlinks are reported as symlinks: stat never follows the last segment either. */
export async function statAt(root: FileHandle, path: CanonicalFsPath): Promise<FsStat> {
  const st = path.segments.length === 0 ? await root.stat({ bigint: true }) : await lstatLast(root, path);
  const kind = kindOf(st);
  return { kind, size: sizeOf(st, kind), modifiedMs: st.mtimeMs < 0n ? 0n : st.mtimeMs };
}

/** Removes a file, a symlink (the link, never its target) or an empty directory. */
export async function removeAt(root: FileHandle, path: CanonicalFsPath): Promise<void> {
  if (path.segments.length === 0) {
    throw fsDenied("remove", FS_DENIAL_REASONS.mountRoot, `${path.guest}: is a mount root and cannot be removed`);
  }
  const [parents, name] = splitLast(path);
  await withDirAt(root, parents, async (dir) => {
    try {
      await fsp.unlink(procPath(dir, name));
    } catch (err) {
      // Linux unlink(2) answers EISDIR for a directory; rmdir(2) never follows a symlink.
      if (errnoCode(err) !== "EISDIR") throw err;
      await fsp.rmdir(procPath(dir, name));
    }
  });
}

/** mkdir -p: each missing segment is created and then opened with O_NOFOLLOW, one at a time. */
export async function mkdirAt(root: FileHandle, path: CanonicalFsPath): Promise<void> {
  await withDirAt(root, path.segments, async () => undefined, { create: true });
}

function lstatLast(root: FileHandle, path: CanonicalFsPath): Promise<BigIntStats> {
  const [parents, name] = splitLast(path);
  return withDirAt(root, parents, (dir) => lstatAt(dir, name));
}

async function entryAt(dir: FileHandle, name: string): Promise<FsEntry | undefined> {
  try {
    const st = await lstatAt(dir, name);
    const kind = kindOf(st);
    return { name, kind, size: sizeOf(st, kind) };
  } catch (err) {
    // Removed between readdir and lstat: it is simply no longer there.
    if (errnoCode(err) === "ENOENT") return undefined;
    throw err;
  }
}

export function kindOf(st: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FsEntryKind {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symlink";
  return "other";
}

/** Only a file's size means anything to the guest; a symlink's would tell its target's length. */
function sizeOf(st: BigIntStats, kind: FsEntryKind): bigint {
  return kind === "file" ? st.size : 0n;
}
