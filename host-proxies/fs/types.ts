/**
 * The shapes of `clawhive:host/fs` (wit/host/fs.wit) as jco lifts them: enums are strings,
 * records are camelCase objects, `u64` is `bigint`, `list<u8>` is `Uint8Array`.
 */

/** `mount-mode`: whether the guest may change what is under the mount. */
export type FsMountMode = "ro" | "rw";

/** One mount an instance is bound with: guest path → host directory. */
export interface FsMount {
  /** Absolute, canonical guest path, e.g. `/work`. */
  guest: string;
  /** Absolute host directory. Never shown to the guest, never in an error message. */
  host: string;
  mode: FsMountMode;
}

/** `mount-info`: what the guest may know about a mount (never the host side). */
export interface FsMountInfo {
  guest: string;
  mode: FsMountMode;
}

/** `entry-kind`. */
export type FsEntryKind = "file" | "directory" | "symlink" | "other";

/** `entry`: one name in a directory listing. `size` is 0 for anything but a file. */
export interface FsEntry {
  name: string;
  kind: FsEntryKind;
  size: bigint;
}

/** `stat-info`. Symlinks are reported as themselves (never followed). */
export interface FsStat {
  kind: FsEntryKind;
  size: bigint;
  modifiedMs: bigint;
}

/** What a host call does to a path; the matcher decides each one. */
export type FsOp = "read" | "write" | "list" | "stat" | "remove" | "mkdir";

/**
 * A guest path after canonicalisation: the mount it belongs to and its segments inside that
 * mount (no `.`, `..` or empty segments). This is the only form the proxy ever acts on.
 */
export interface CanonicalFsPath {
  mount: { index: number; spec: FsMount };
  /** Segments relative to the mount root; empty for the mount root itself. */
  segments: string[];
  /** The canonical guest path, e.g. `/work/a/b.txt`: safe to show the guest and the audit. */
  guest: string;
}
