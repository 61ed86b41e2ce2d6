/**
 * `search`: the lines of the files below a directory (or of one file) that match a pattern.
 * Each file is opened below its held directory with O_NOFOLLOW, checked with fstat on what was
 * opened (a regular file with one name, within the per-file cap), read whole with large
 * sequential reads into one reused buffer, and scanned (scan.ts). A file met during the walk
 * that `fs.read` would refuse is skipped and counted; a file named as the start is refused
 * with the same denial `fs.read` gives.
 */
import { fstatSync, readSync } from "node:fs";
import { errnoCode } from "../os-errors.js";
import { compilePathGlob } from "../path-glob.js";
import { FS_DENIAL_REASONS, fsDenied } from "../reasons.js";
import type { OpenFds } from "./fds.js";
import { compilePattern } from "./pattern.js";
import { scanFile } from "./scan.js";
import { closeStart, openStart } from "./start.js";
import { jobTree, type TreeWalk } from "./tree.js";
import { OutputBudget } from "./output.js";
import type { BulkJob, FsSearchMatch, SearchLimits, WorkerSearchResult } from "./types.js";

const MIN_BUFFER = 256 * 1024;
let buffer = Buffer.allocUnsafe(MIN_BUFFER);

export function runSearch(job: BulkJob & { limits: SearchLimits }, fds: OpenFds): WorkerSearchResult {
  const { limits } = job;
  const deadline = performance.now() + limits.maxMillis;
  const pattern = compilePattern(limits.pattern, { mode: limits.mode, caseInsensitive: limits.caseInsensitive });
  const include = limits.includeGlobs.map(compilePathGlob);
  const tree = jobTree(job, fds, deadline);
  const matches: FsSearchMatch[] = [];
  let filesScanned = 0;
  let filesMatched = 0;
  let bytesRead = 0;
  const output = new OutputBudget(limits.maxOutputChars);

  /** Searches one file; false once a cap ends the search. `named`: the start itself. */
  const searchFile = (dir: number, name: string, path: string, named: boolean): boolean => {
    if (filesScanned === limits.maxFiles) return stop("max-files");
    if (performance.now() > deadline) return stop("time");
    let fd: number;
    try {
      fd = fds.openFile(dir, name);
    } catch (err) {
      if (named) throw err;
      const code = errnoCode(err);
      if (code === "ELOOP") tree.skipped.symlink++;
      else if (code === "ENXIO") tree.skipped.special++;
      else tree.noteUnreadable(path, err);
      return true;
    }
    let bytes: Buffer | undefined;
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) {
        if (named) throw fsDenied("read", FS_DENIAL_REASONS.specialFile, `${path}: is a device, FIFO or socket; only regular files can be read or written`);
        tree.skipped.special++;
        return true;
      }
      if (st.nlink > 1) {
        if (named) throw fsDenied("read", FS_DENIAL_REASONS.hardLink, `${path}: file has ${st.nlink} hard links; files with more than one name are refused`);
        tree.skipped.hardLink++;
        return true;
      }
      if (st.size > limits.maxFileBytes) {
        tree.skipped.tooLarge++;
        return true;
      }
      if (bytesRead + st.size > limits.maxBytes) return stop("max-bytes");
      bytes = readCapped(fd, st.size, limits.maxFileBytes);
    } catch (err) {
      if (named || errnoCode(err) === undefined) throw err;
      tree.noteUnreadable(path, err);
      return true;
    } finally {
      fds.close(fd);
    }
    if (bytes === undefined) {
      // It grew past the cap since its fstat.
      tree.skipped.tooLarge++;
      return true;
    }
    filesScanned++;
    bytesRead += bytes.length;
    const outcome = scanFile(bytes, pattern, { ...limits, remaining: limits.maxMatches - matches.length, deadline });
    if (outcome.kind === "binary") {
      tree.skipped.binary++;
      return true;
    }
    const before = matches.length;
    let full = false;
    for (const hit of outcome.hits) {
      if ((full = !output.takeMatch(path, hit))) break;
      matches.push({ path, ...hit });
    }
    if (matches.length > before) filesMatched++;
    if (full) return stop("max-output");
    if (outcome.more) return stop("max-matches");
    if (outcome.late) return stop("time");
    return true;
  };
  const stop = (reason: Parameters<TreeWalk["stop"]>[0]): false => {
    tree.stop(reason);
    return false;
  };

  const start = openStart(job, fds, { files: true });
  try {
    if (start.kind === "file") {
      searchFile(start.parent, start.name, job.start.guest, true);
    } else {
      tree.walk(start.fd, job.start.guest, (entry) => {
        if (entry.kind === "symlink") tree.skipped.symlink++;
        else if (entry.kind === "other") tree.skipped.special++;
        if (entry.kind !== "file") return true;
        if (include.length > 0 && !include.some((g) => g.matches(entry.relative, entry.name))) return true;
        return searchFile(entry.dir, entry.name, entry.path, false);
      });
    }
  } finally {
    closeStart(start, fds);
  }
  return {
    matches,
    truncated: tree.stopped !== undefined,
    ...(tree.stopped === undefined ? {} : { stopped: tree.stopped }),
    entriesScanned: tree.entriesScanned,
    filesScanned,
    filesMatched,
    bytesRead,
    skipped: tree.skipped,
    unreadable: tree.unreadable,
  };
}

/** The whole file, or `undefined` once it holds more than `cap` bytes (it grew since its fstat). */
function readCapped(fd: number, size: number, cap: number): Buffer | undefined {
  const want = Math.min(size, cap) + 1;
  if (buffer.length < want) buffer = Buffer.allocUnsafe(Math.max(want, MIN_BUFFER));
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total > cap) return undefined;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, cap + 1));
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    const n = readSync(fd, buffer, total, buffer.length - total, null);
    if (n === 0) break;
    total += n;
    if (total > cap) return undefined;
  }
  return buffer.subarray(0, total);
}
