/**
 * openat(2) for Node, which has none. On Linux, `/proc/self/fd/<fd>/<name>` resolves `<name>`
 * inside the directory the fd holds: the kernel jumps to the open file itself (proc(5), "magic
 * links"), it does not re-resolve the path the directory was opened by. So a walk that opens one
 * segment at a time from the mount root's fd, with O_NOFOLLOW on every segment, acts on exactly
 * the directories it checked: swapping a segment for a symlink between two steps makes the next
 * open fail (ELOOP/ENOTDIR), it never redirects it.
 *
 * Segments come from the canonicaliser: never empty, `.`, `..`, and never holding `/`, so each
 * lookup is exactly one directory entry.
 */
import { constants, promises as fsp } from "node:fs";
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { errnoCode } from "./os-errors.js";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
export const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** The path that names `name` inside the directory `dir` holds, without following `name`. */
export function procPath(dir: FileHandle, name: string): string {
  return fdPath(dir.fd, name);
}

/** The path of the directory `dir` holds itself (for readdir, which takes no fd). */
export function procDir(dir: FileHandle): string {
  return fdPath(dir.fd);
}

/**
 * The same for a raw descriptor (the bulk worker's synchronous walk): every thread of the
 * process shares the descriptor table, so a root the proxy holds resolves in the worker too.
 */
export function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** lstat of `name` inside `dir`: never follows `name`. */
export function lstatAt(dir: FileHandle, name: string): Promise<BigIntStats> {
  return fsp.lstat(procPath(dir, name), { bigint: true });
}

/**
 * Opens the directory `name` inside `dir`. O_DIRECTORY|O_NOFOLLOW on a symlink fails with
 * ENOTDIR, not ELOOP, so an ENOTDIR is told apart by an lstat; the lstat only picks the error,
 * it decides nothing that is acted on.
 */
export async function openDirAt(dir: FileHandle, name: string): Promise<FileHandle> {
  try {
    return await fsp.open(procPath(dir, name), DIR_FLAGS);
  } catch (err) {
    if (errnoCode(err) === "ENOTDIR" && (await isSymlinkAt(dir, name))) throw symlinkError();
    throw err;
  }
}

/** Opens `name` inside `dir` with `flags` | O_NOFOLLOW. */
export function openFileAt(dir: FileHandle, name: string, flags: number, mode?: number): Promise<FileHandle> {
  return fsp.open(procPath(dir, name), flags | O_NOFOLLOW, mode);
}

export interface WalkOptions {
  /** Create missing directories on the way (mkdir -p). */
  create?: boolean;
}

/**
 * Runs `fn` with a handle on the directory `segments` lead to from `root`, and closes every
 * handle it opened afterwards. `root` itself is borrowed, never closed. At most two handles
 * are open at a time.
 */
export async function withDirAt<T>(
  root: FileHandle,
  segments: readonly string[],
  fn: (dir: FileHandle) => Promise<T>,
  options: WalkOptions = {},
): Promise<T> {
  let current = root;
  try {
    for (const name of segments) {
      const next = options.create === true ? await openOrCreateDirAt(current, name) : await openDirAt(current, name);
      const previous = current;
      current = next;
      if (previous !== root) await previous.close();
    }
    return await fn(current);
  } finally {
    if (current !== root) await current.close();
  }
}

async function openOrCreateDirAt(dir: FileHandle, name: string): Promise<FileHandle> {
  try {
    return await openDirAt(dir, name);
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
  }
  try {
    await fsp.mkdir(procPath(dir, name), 0o777);
  } catch (err) {
    // Another writer made it between our open and our mkdir: open what is there, checked again.
    if (errnoCode(err) !== "EEXIST") throw err;
  }
  return openDirAt(dir, name);
}

async function isSymlinkAt(dir: FileHandle, name: string): Promise<boolean> {
  try {
    return (await lstatAt(dir, name)).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Shaped like the kernel's own answer for a final symlink, so one mapping serves both. */
export function symlinkError(): Error {
  return Object.assign(new Error("symbolic link in path"), { code: "ELOOP" });
}
