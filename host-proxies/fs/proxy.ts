/**
 * The fs host proxy of one instance: its mounts and limits are fixed at creation. Every call
 * runs the same three steps (STYLE habit 6): canonicalise the guest path once, decide on that
 * canonical value with the matcher, then act on the same segments through directory handles
 * (dir-walk.ts). The policy gate decides too; the proxy re-decides anyway, so a gate bug
 * cannot widen what a plugin reaches.
 */
import type { FileHandle } from "node:fs/promises";
import { InvalidInputError } from "../../runtime/errors.js";
import { HostProxyError } from "../types.js";
import { canonicalizeFsPath, guestSegments } from "./canonicalize.js";
import { entrySkip } from "./entry-rules.js";
import { searchAt, walkAt } from "./bulk-ops.js";
import { searchLimits, walkLimits } from "./bulk/options.js";
import type { FsSearchResult, FsWalkResult } from "./bulk/types.js";
import { listAt, mkdirAt, removeAt, statAt } from "./dir-ops.js";
import { readAt, writeAt } from "./file-ops.js";
import { allowSensitiveProblems, matchFsOp } from "./matcher.js";
import type { FsGrantOptions } from "./matcher.js";
import { openMounts } from "./mounts.js";
import type { OpenMount, OpenMountsOptions } from "./mounts.js";
import { toHostProxyError } from "./os-errors.js";
import type { CanonicalFsPath, FsEntry, FsMount, FsMountInfo, FsOp, FsStat } from "./types.js";

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_WRITE_BYTES = 10 * 1024 * 1024;

export interface FsProxyOptions extends FsGrantOptions, OpenMountsOptions {
  /** Reading a larger file is denied (`size-cap`). Default 10 MiB. */
  maxReadBytes?: number;
  /** Writing more bytes is denied (`size-cap`). Default 10 MiB. */
  maxWriteBytes?: number;
  /**
   * The `allowSensitive` lists of every policy layer (agent, task or elevation, ancestors),
   * asked at each `walk` and `search`: the policy decides only the start, so an entry inside
   * is shown only when every layer, and this proxy's own grant, lifts it.
   */
  bulkLifts?: (() => ReadonlyArray<readonly string[]>) | undefined;
}

/** `clawhive:host/fs` for one instance. Every method throws `HostProxyError` only. */
export interface FsProxy {
  mounts(): Promise<FsMountInfo[]>;
  read(path: string): Promise<Uint8Array>;
  /** Creates or truncates a regular file; the parent directory must exist. */
  write(path: string, data: Uint8Array): Promise<void>;
  /** Sensitive and unaddressable names are left out. */
  listDir(path: string): Promise<FsEntry[]>;
  stat(path: string): Promise<FsStat>;
  /** Removes a file, a symlink itself, or an empty directory. */
  remove(path: string): Promise<void>;
  /** Creates a directory and any missing parents. */
  mkdir(path: string): Promise<void>;
  /**
   * The entries below a directory, in one call: bounded (entries, depth, results, time),
   * filtered by globs, never following a symlink, leaving out what `listDir` leaves out.
   */
  walk(path: string, options?: unknown): Promise<FsWalkResult>;
  /**
   * The matching lines of the files below a directory (or of one file), in one call: the
   * same rules and per-file cap as `read`, bounded in files, bytes, matches and time.
   */
  search(path: string, options: unknown): Promise<FsSearchResult>;
  /** Waits for calls in flight, then releases the mount handles. Later calls fail with `io`. */
  close(): Promise<void>;
}

/**
 * Checks the options and mounts, and opens every mount root now; throws `InvalidInputError`
 * naming the mount (by index and guest path) if one is malformed or not a directory.
 */
export async function createFsProxy(mounts: readonly FsMount[], options: FsProxyOptions = {}): Promise<FsProxy> {
  const limits = checkOptions(options);
  return new MountedFsProxy(await openMounts(mounts, { hostGuard: options.hostGuard }), limits);
}

interface Limits {
  maxReadBytes: number;
  maxWriteBytes: number;
  grant: FsGrantOptions;
  bulkLifts: () => ReadonlyArray<readonly string[]>;
}

function checkOptions(options: FsProxyOptions): Limits {
  const maxReadBytes = checkCap(options.maxReadBytes, "maxReadBytes", DEFAULT_MAX_READ_BYTES);
  const maxWriteBytes = checkCap(options.maxWriteBytes, "maxWriteBytes", DEFAULT_MAX_WRITE_BYTES);
  const allow = options.allowSensitive ?? [];
  if (!Array.isArray(allow) || allow.some((a) => typeof a !== "string")) {
    throw new InvalidInputError("allowSensitive: expected an array of strings", { field: "allowSensitive" });
  }
  const problems = allowSensitiveProblems(allow);
  if (problems.length > 0) throw new InvalidInputError(problems.join("; "), { field: "allowSensitive" });
  return { maxReadBytes, maxWriteBytes, grant: { allowSensitive: Object.freeze([...allow]) }, bulkLifts: options.bulkLifts ?? (() => []) };
}

function checkCap(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(`${field}: must be a non-negative integer number of bytes`, { field });
  }
  return value;
}

class MountedFsProxy implements FsProxy {
  readonly #mounts: readonly OpenMount[];
  readonly #specs: readonly FsMount[];
  readonly #limits: Limits;
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(mounts: OpenMount[], limits: Limits) {
    this.#mounts = Object.freeze(mounts);
    this.#specs = Object.freeze(mounts.map((m) => m.spec));
    this.#limits = limits;
  }

  async mounts(): Promise<FsMountInfo[]> {
    return this.#specs.map(({ guest, mode }) => ({ guest, mode }));
  }

  read(path: string): Promise<Uint8Array> {
    return this.#run("read", path, (root, at) => readAt(root, at, { maxBytes: this.#limits.maxReadBytes }));
  }

  write(path: string, data: Uint8Array): Promise<void> {
    // Typed callers cannot get this wrong, but a string would be written as UTF-8 without it.
    if (!(data instanceof Uint8Array)) return Promise.reject(HostProxyError.invalidInput("fs.write: data must be a Uint8Array"));
    return this.#run("write", path, (root, at) => writeAt(root, at, { data, maxBytes: this.#limits.maxWriteBytes }));
  }

  listDir(path: string): Promise<FsEntry[]> {
    return this.#run("list", path, (root, at) => {
      const dir = [...guestSegments(at.mount.spec.guest), ...at.segments];
      const hide = (name: string): boolean => entrySkip(name, dir, [this.#limits.grant]) !== undefined;
      return listAt(root, at, { hide });
    });
  }

  stat(path: string): Promise<FsStat> {
    return this.#run("stat", path, statAt);
  }

  remove(path: string): Promise<void> {
    return this.#run("remove", path, removeAt);
  }

  mkdir(path: string): Promise<void> {
    return this.#run("mkdir", path, mkdirAt);
  }

  walk(path: string, options?: unknown): Promise<FsWalkResult> {
    let limits;
    try {
      limits = walkLimits(options);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#run("list", path, (_root, at) => walkAt(at, limits, this.#bulk()));
  }

  search(path: string, options: unknown): Promise<FsSearchResult> {
    let limits;
    try {
      limits = searchLimits(options, this.#limits.maxReadBytes);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#run("read", path, (_root, at) => searchAt(at, limits, this.#bulk()));
  }

  /** What a bulk job needs besides its start: the roots (by descriptor) and every grant's lifts. */
  #bulk(): { mounts: Array<{ guest: string; fd: number }>; lifts: string[][] } {
    const own = [...(this.#limits.grant.allowSensitive ?? [])];
    return {
      mounts: this.#mounts.map((m) => ({ guest: m.spec.guest, fd: m.root.fd })),
      lifts: [own, ...this.#limits.bulkLifts().map((l) => [...l])],
    };
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    // A root fd closed under a call in flight could be reused by an unrelated open, and
    // /proc/self/fd/<n> would then resolve inside that: wait for every call to finish first.
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    await Promise.all(this.#mounts.map((m) => m.release()));
  }

  /** Canonicalise → decide → act, with OS errors worded in guest terms. */
  async #run<T>(op: FsOp, guestPath: string, act: (root: FileHandle, at: CanonicalFsPath) => Promise<T>): Promise<T> {
    if (this.#closed) throw HostProxyError.io("fs proxy is closed: the instance was released");
    const at = canonicalizeFsPath(guestPath, this.#specs, { op });
    const decision = matchFsOp(op, at, this.#limits.grant);
    if (!decision.allow) throw new HostProxyError({ tag: "denied", val: decision.denial });
    const mount = this.#mounts[at.mount.index];
    if (mount === undefined) throw HostProxyError.io(`${at.guest}: mount table changed`);
    // Counted before the first await, so close() sees every call that got past the check.
    this.#inFlight++;
    try {
      return await act(mount.root, at);
    } catch (err) {
      throw toHostProxyError(err, op, at.guest);
    } finally {
      if (--this.#inFlight === 0) this.#drained?.();
    }
  }
}
