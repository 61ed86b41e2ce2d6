/**
 * The bounded recursive walk `walk` and `search` share, run in the bulk worker. It starts from
 * a directory the proxy's canonicaliser and matcher have decided, and acts only through
 * descriptors opened one name at a time (fds.ts), so a symlink planted anywhere below is met as
 * a symlink, never followed. Each directory's entries pass the same rule as a listing
 * (entry-rules.ts): an unaddressable or sensitive name is counted and never seen, entered or
 * read. A directory that is another mount's root is walked through that mount's own root, as
 * the canonicaliser would resolve a path into it.
 *
 * Order: a directory's entries in name order, then its subdirectories, depth first.
 */
import { readdirSync, lstatSync } from "node:fs";
import type { Dirent } from "node:fs";
import { guestSegments, joinGuest } from "../canonicalize.js";
import { fdPath } from "../dir-walk.js";
import { kindOf } from "../dir-ops.js";
import { decodeName, entrySkip } from "../entry-rules.js";
import type { FsGrantOptions } from "../matcher.js";
import { errnoCode } from "../os-errors.js";
import { compilePathGlob, type PathGlob } from "../path-glob.js";
import type { FsEntryKind } from "../types.js";
import type { OpenFds } from "./fds.js";
import { emptySkips } from "./types.js";
import type { BulkJob, FsSkipCounts, FsStopReason, JobMount } from "./types.js";

/** How many unreadable entries a walk names before it only counts them. */
export const MAX_NAMED_UNREADABLE = 20;

export interface TreeEntry {
  /** Canonical guest path. */
  path: string;
  /** `/`-separated path below the walk's root. */
  relative: string;
  name: string;
  kind: FsEntryKind;
  /** The directory that holds it: borrowed, valid during the visit only. */
  dir: number;
}

export interface TreeOptions {
  fds: OpenFds;
  mounts: readonly JobMount[];
  /** An entry is hidden unless every grant lifts it. */
  grants: readonly FsGrantOptions[];
  exclude: readonly PathGlob[];
  maxDepth: number;
  maxEntries: number;
  /** `performance.now()` past which the walk stops. */
  deadline: number;
}

interface Listed {
  name: string;
  kind: FsEntryKind | undefined;
  /** Set for a nested mount's root: walked through that root, never closed. */
  mountRoot?: number;
}

export class TreeWalk {
  readonly skipped: FsSkipCounts = emptySkips();
  readonly unreadable: string[] = [];
  entriesScanned = 0;
  stopped: FsStopReason | undefined;
  readonly #options: TreeOptions;
  /** Guest directory → the mounts whose roots are its direct children. */
  readonly #nested = new Map<string, Array<{ name: string; fd: number }>>();

  constructor(options: TreeOptions) {
    this.#options = options;
    for (const mount of options.mounts) {
      const segments = guestSegments(mount.guest);
      const name = segments.pop();
      if (name === undefined) continue;
      const parent = joinGuest(segments);
      this.#nested.set(parent, [...(this.#nested.get(parent) ?? []), { name, fd: mount.fd }]);
    }
  }

  stop(reason: FsStopReason): void {
    this.stopped ??= reason;
  }

  /** Counts (and names, up to a cap) an entry the host would not open or read. */
  noteUnreadable(path: string, err: unknown): void {
    const code = errnoCode(err);
    // Gone between the listing and the open: it is simply no longer there.
    if (code === "ENOENT") return;
    this.skipped.unreadable++;
    if (this.unreadable.length < MAX_NAMED_UNREADABLE) this.unreadable.push(`${path} (${code ?? "error"})`);
  }

  /**
   * Visits every entry below the directory `dir` holds (its guest path `guest`). `visit`
   * returns false to end the walk (after calling `stop`). The root's own listing failing is
   * thrown; any other directory's is counted.
   */
  walk(dir: number, guest: string, visit: (entry: TreeEntry) => boolean): void {
    this.#walkDir(dir, guestSegments(guest), "", 0, visit);
  }

  #walkDir(dir: number, guest: string[], relative: string, depth: number, visit: (entry: TreeEntry) => boolean): void {
    const listed = this.#list(dir, guest, depth === 0);
    const subdirectories: Array<{ entry: TreeEntry; mountRoot: number | undefined }> = [];
    for (const item of listed) {
      if (this.stopped !== undefined) return;
      if (++this.entriesScanned > this.#options.maxEntries) {
        this.entriesScanned--;
        return this.stop("max-entries");
      }
      if ((this.entriesScanned & 63) === 0 && performance.now() > this.#options.deadline) return this.stop("time");
      const path = joinGuest([...guest, item.name]);
      const kind = item.kind ?? this.#lstatKind(dir, item.name, path);
      if (kind === undefined) continue;
      const rel = relative === "" ? item.name : `${relative}/${item.name}`;
      if (this.#options.exclude.some((g) => g.matches(rel, item.name))) {
        this.skipped.excluded++;
        continue;
      }
      const entry: TreeEntry = { path, relative: rel, name: item.name, kind, dir };
      if (!visit(entry)) return;
      if (kind === "directory") subdirectories.push({ entry, mountRoot: item.mountRoot });
    }
    for (const { entry, mountRoot } of subdirectories) {
      if (this.stopped !== undefined) return;
      if (depth + 2 > this.#options.maxDepth) {
        this.skipped.tooDeep++;
        continue;
      }
      let child: number;
      try {
        child = mountRoot ?? this.#options.fds.openDir(dir, entry.name);
      } catch (err) {
        if (errnoCode(err) === "ELOOP") this.skipped.symlink++;
        else this.noteUnreadable(entry.path, err);
        continue;
      }
      try {
        this.#walkDir(child, [...guest, entry.name], entry.relative, depth + 1, visit);
      } finally {
        if (mountRoot === undefined) this.#options.fds.close(child);
      }
    }
  }

  /** The directory's admitted entries in name order (nested mount roots standing in for what they hide). */
  #list(dir: number, guest: string[], isRoot: boolean): Listed[] {
    let raw: Dirent<Buffer>[];
    try {
      raw = readdirSync(fdPath(dir), { withFileTypes: true, encoding: "buffer" });
    } catch (err) {
      if (isRoot) throw err;
      this.noteUnreadable(joinGuest(guest), err);
      return [];
    }
    const mounts = this.#nested.get(joinGuest(guest)) ?? [];
    const listed: Listed[] = mounts.map((m) => ({ name: m.name, kind: "directory", mountRoot: m.fd }));
    for (const dirent of raw) {
      const name = decodeName(dirent.name);
      if (name === undefined) {
        this.skipped.unaddressable++;
        continue;
      }
      if (mounts.some((m) => m.name === name)) continue;
      const skip = entrySkip(name, guest, this.#options.grants);
      if (skip === "unaddressable") this.skipped.unaddressable++;
      else if (skip === "sensitive") this.skipped.sensitive++;
      else listed.push({ name, kind: direntKind(dirent) });
    }
    return listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** For a filesystem whose listing gives no type (DT_UNKNOWN). */
  #lstatKind(dir: number, name: string, path: string): FsEntryKind | undefined {
    try {
      return kindOf(lstatSync(fdPath(dir, name)));
    } catch (err) {
      this.noteUnreadable(path, err);
      return undefined;
    }
  }
}

function direntKind(dirent: Dirent<Buffer>): FsEntryKind | undefined {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
  if (dirent.isSymbolicLink()) return "symlink";
  if (dirent.isFIFO() || dirent.isSocket() || dirent.isBlockDevice() || dirent.isCharacterDevice()) return "other";
  return undefined;
}

/** The walk a bulk job's limits describe: its mounts, its grants' lifts, exclusions, depth, entries and deadline. */
export function jobTree(job: BulkJob & { limits: { excludeGlobs: string[]; maxDepth: number; maxEntries: number } }, fds: OpenFds, deadline: number): TreeWalk {
  return new TreeWalk({
    fds,
    mounts: job.mounts,
    grants: job.lifts.map((allowSensitive) => ({ allowSensitive })),
    exclude: job.limits.excludeGlobs.map(compilePathGlob),
    maxDepth: job.limits.maxDepth,
    maxEntries: job.limits.maxEntries,
    deadline,
  });
}
