/**
 * Where a bulk job starts: the canonical segments opened one at a time below the mount's root
 * (never following a symlink), as withDirAt does for every other op.
 */
import { lstatSync } from "node:fs";
import { fdPath, symlinkError } from "../dir-walk.js";
import { FS_DENIAL_REASONS, fsDenied } from "../reasons.js";
import { HostProxyError } from "../../types.js";
import type { OpenFds } from "./fds.js";
import type { BulkJob } from "./types.js";

export type Start =
  /** `fd` is the mount root itself (borrowed) when `owned` is false. */
  | { kind: "directory"; fd: number; owned: boolean }
  /** A named file: its parent directory, and its name there. */
  | { kind: "file"; parent: number; owned: boolean; name: string };

/** Opens the start; `files`: whether a regular file may be the start (a search of one file). */
export function openStart(job: BulkJob, fds: OpenFds, options: { files: boolean }): Start {
  const root = job.mounts[job.start.mount]?.fd;
  if (root === undefined) throw HostProxyError.io(`${job.start.guest}: mount table changed`);
  const segments = job.start.segments;
  const name = segments[segments.length - 1];
  if (name === undefined) return { kind: "directory", fd: root, owned: false };
  let parent = root;
  try {
    for (const segment of segments.slice(0, -1)) {
      const next = fds.openDir(parent, segment);
      if (parent !== root) fds.close(parent);
      parent = next;
    }
    const st = lstatSync(fdPath(parent, name));
    if (st.isSymbolicLink()) throw symlinkError();
    if (st.isDirectory()) {
      const fd = fds.openDir(parent, name);
      if (parent !== root) fds.close(parent);
      return { kind: "directory", fd, owned: true };
    }
    if (!options.files) throw HostProxyError.invalidInput(`${job.start.guest}: is not a directory`);
    if (!st.isFile()) {
      throw fsDenied("read", FS_DENIAL_REASONS.specialFile, `${job.start.guest}: is a device, FIFO or socket; only regular files can be read or written`);
    }
    return { kind: "file", parent, owned: parent !== root, name };
  } catch (err) {
    if (parent !== root) fds.close(parent);
    throw err;
  }
}

/** Closes what `openStart` opened. */
export function closeStart(start: Start, fds: OpenFds): void {
  if (!start.owned) return;
  fds.close(start.kind === "directory" ? start.fd : start.parent);
}
