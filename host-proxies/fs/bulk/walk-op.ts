/** `walk`: the entries below a directory that pass the filters, with their kinds and sizes. */
import { lstatSync } from "node:fs";
import { fdPath } from "../dir-walk.js";
import { compilePathGlob } from "../path-glob.js";
import type { OpenFds } from "./fds.js";
import { closeStart, openStart } from "./start.js";
import { jobTree } from "./tree.js";
import { OutputBudget } from "./output.js";
import type { BulkJob, WalkLimits, WorkerWalkResult } from "./types.js";

export function runWalk(job: BulkJob & { limits: WalkLimits }, fds: OpenFds): WorkerWalkResult {
  const { limits } = job;
  const deadline = performance.now() + limits.maxMillis;
  const include = limits.includeGlobs.map(compilePathGlob);
  const kinds = new Set(limits.kinds);
  const start = openStart(job, fds, { files: false });
  if (start.kind !== "directory") throw new Error("walk: start is not a directory");
  const entries: WorkerWalkResult["entries"] = [];
  const output = new OutputBudget(limits.maxOutputChars);
  const tree = jobTree(job, fds, deadline);
  try {
    tree.walk(start.fd, job.start.guest, (entry) => {
      if (!kinds.has(entry.kind)) {
        if (entry.kind === "symlink") tree.skipped.symlink++;
        if (entry.kind === "other") tree.skipped.special++;
        return true;
      }
      if (include.length > 0 && !include.some((g) => g.matches(entry.relative, entry.name))) return true;
      if (entries.length === limits.maxResults) {
        tree.stop("max-results");
        return false;
      }
      if (!output.takePath(entry.path)) {
        tree.stop("max-output");
        return false;
      }
      let size = 0;
      if (entry.kind === "file") {
        try {
          size = lstatSync(fdPath(entry.dir, entry.name)).size;
        } catch (err) {
          tree.noteUnreadable(entry.path, err);
          return true;
        }
      }
      entries.push({ path: entry.path, kind: entry.kind, size });
      return true;
    });
  } finally {
    closeStart(start, fds);
  }
  return {
    entries,
    truncated: tree.stopped !== undefined,
    ...(tree.stopped === undefined ? {} : { stopped: tree.stopped }),
    entriesScanned: tree.entriesScanned,
    skipped: tree.skipped,
    unreadable: tree.unreadable,
  };
}
