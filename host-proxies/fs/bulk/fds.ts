/**
 * The bulk worker's descriptors, opened the way dir-walk.ts opens them (one name at a time
 * below a held directory, O_NOFOLLOW on every one) but synchronously: the worker does nothing
 * else, and a synchronous open, fstat and read cost a fraction of the promise round trips.
 *
 * Each open descriptor is written into a shared slot table first thing and cleared before it
 * is closed, so when the main thread terminates a worker on its deadline it can close what
 * that worker left open. (A kill between open and record, or between clear and close, leaks
 * one descriptor; it never closes one twice.)
 */
import { closeSync, constants, lstatSync, openSync } from "node:fs";
import { DIR_FLAGS, fdPath, symlinkError } from "../dir-walk.js";
import { READ_FLAGS } from "../file-ops.js";
import { errnoCode } from "../os-errors.js";

/** Slots in the table: the deepest walk holds one directory per level, plus a file. */
export const FD_SLOTS = 160;

/** A fresh slot table, every slot empty (-1). */
export function fdSlotTable(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(FD_SLOTS * 4);
  new Int32Array(buffer).fill(-1);
  return buffer;
}

/** Closes every descriptor a terminated worker left in its slots. Main thread only. */
export function closeLeftOpen(buffer: SharedArrayBuffer): void {
  const slots = new Int32Array(buffer);
  for (let i = 0; i < slots.length; i++) {
    const fd = Atomics.exchange(slots, i, -1);
    if (fd >= 0) {
      try {
        closeSync(fd);
      } catch {
        // Already gone: nothing to do.
      }
    }
  }
}

export class OpenFds {
  readonly #slots: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#slots = new Int32Array(buffer);
  }

  /** Opens the directory `name` inside `dir`; a symlink fails as ELOOP (as openDirAt). */
  openDir(dir: number, name: string): number {
    try {
      return this.#record(openSync(fdPath(dir, name), DIR_FLAGS));
    } catch (err) {
      if (errnoCode(err) === "ENOTDIR" && isSymlinkAt(dir, name)) throw symlinkError();
      throw err;
    }
  }

  /** Opens the file `name` inside `dir` for reading, never following it. */
  openFile(dir: number, name: string): number {
    return this.#record(openSync(fdPath(dir, name), READ_FLAGS | constants.O_NOFOLLOW));
  }

  close(fd: number): void {
    const slot = this.#slots.indexOf(fd);
    if (slot >= 0) Atomics.store(this.#slots, slot, -1);
    closeSync(fd);
  }

  #record(fd: number): number {
    const slot = this.#slots.indexOf(-1);
    if (slot < 0) {
      closeSync(fd);
      throw Object.assign(new Error("too many open directories"), { code: "EMFILE" });
    }
    Atomics.store(this.#slots, slot, fd);
    return fd;
  }
}

function isSymlinkAt(dir: number, name: string): boolean {
  try {
    return lstatSync(fdPath(dir, name)).isSymbolicLink();
  } catch {
    return false;
  }
}
