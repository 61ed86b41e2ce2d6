/**
 * Guest path → (mount, segments). Pure: touches no disk. Everything the proxy does afterwards
 * acts on the segments returned here and nothing else (STYLE habit 6).
 *
 * Rules, and why:
 * - Absolute POSIX paths only: a relative path has no meaning without a cwd, and the guest has none.
 * - NUL, other C0 controls and DEL are refused: NUL truncates C strings; newlines and escapes in
 *   names forge audit and log lines.
 * - Backslash is refused: on Linux it is an ordinary name byte, but policy patterns, audit
 *   readers and Windows-minded models may read `..\..\x` as a traversal; refusing it keeps one
 *   meaning for every consumer. Files whose names hold one cannot be addressed (and are hidden
 *   from listings).
 * - Lone UTF-16 surrogates are refused: Node encodes them as U+FFFD, so the name checked would
 *   not be the name opened.
 * - Empty and `.` segments collapse. `..` is resolved lexically and never reaches the OS, but a
 *   `..` that steps out of the mount the path started in is refused, even if a later segment
 *   comes back (`/work/../work/x`): such a path names a place outside the mount on its way, and
 *   "normalising" it would hide that the guest asked for it. Entering a nested mount through
 *   `..` is refused for the same reason (it would bypass the nested mount's mode).
 * - Longest matching mount prefix wins (`/work/ro` over `/work`), segment by segment.
 * - At most 4096 UTF-8 bytes (PATH_MAX) and 255 bytes per segment (NAME_MAX).
 */
import { HostProxyError } from "../types.js";
import { FS_DENIAL_REASONS, fsDenied } from "./reasons.js";
import type { CanonicalFsPath, FsMount, FsOp } from "./types.js";

export const MAX_GUEST_PATH_BYTES = 4096;
export const MAX_SEGMENT_BYTES = 255;

// A code point range, so with the `u` flag a surrogate matches only when it is unpaired.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
// eslint-disable-next-line no-control-regex -- the controls are exactly what we refuse
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface CanonicalizeOptions {
  /** The op the path is for; picks the capability named in an `outside-mount` denial. */
  op?: FsOp;
}

/**
 * Canonicalises `guestPath` against `mounts`, or throws `HostProxyError`: `invalid-input` for
 * a malformed path, `denied` (`outside-mount`) for a path outside every mount.
 */
export function canonicalizeFsPath(
  guestPath: unknown,
  mounts: readonly FsMount[],
  options: CanonicalizeOptions = {},
): CanonicalFsPath {
  const op = options.op ?? "read";
  const raw = checkPathString(guestPath);
  const rawSegments = raw.split("/").filter((s) => s !== "" && s !== ".");
  const mountSegments = mounts.map((m) => guestSegments(m.guest));
  const start = longestMount(rawSegments, mountSegments);
  if (start === undefined) {
    throw fsDenied(op, FS_DENIAL_REASONS.outsideMount, `${quote(raw)}: path is outside every mount`);
  }
  const base = mountSegments[start] ?? [];
  const depths = new Set(mountSegments.map((s) => s.length).filter((d) => d > base.length));
  const segments: string[] = [];
  for (const segment of rawSegments.slice(base.length)) {
    if (segment === "..") {
      if (segments.pop() === undefined) {
        throw fsDenied(op, FS_DENIAL_REASONS.outsideMount, `${quote(raw)}: '..' leaves the mount ${mounts[start]?.guest}`);
      }
      continue;
    }
    segments.push(segment);
    if (depths.has(base.length + segments.length)) {
      const here = [...base, ...segments];
      if (longestMount(here, mountSegments) !== start) {
        throw fsDenied(op, FS_DENIAL_REASONS.outsideMount, `${quote(raw)}: '..' crosses into another mount`);
      }
    }
  }
  const spec = mounts[start] as FsMount;
  return { mount: { index: start, spec }, segments, guest: joinGuest([...base, ...segments]) };
}

/** Why `name` cannot be a path segment, or `undefined` if it can. Shared with listings. */
export function segmentProblem(name: string): string | undefined {
  if (name.includes("\0")) return "contains a NUL byte";
  if (CONTROL.test(name)) return "contains a control character";
  if (name.includes("\\")) return "contains a backslash";
  if (LONE_SURROGATE.test(name)) return "contains an unpaired UTF-16 surrogate";
  if (Buffer.byteLength(name, "utf8") > MAX_SEGMENT_BYTES) {
    return `has a segment longer than ${MAX_SEGMENT_BYTES} bytes`;
  }
  return undefined;
}

/** `/a/b` → `["a", "b"]`, `/` → `[]`. For mount guest paths, which are already canonical. */
export function guestSegments(guest: string): string[] {
  return guest.split("/").filter((s) => s !== "");
}

/** `["a", "b"]` → `/a/b`, `[]` → `/`. */
export function joinGuest(segments: readonly string[]): string {
  return `/${segments.join("/")}`;
}

function checkPathString(guestPath: unknown): string {
  if (typeof guestPath !== "string") {
    throw HostProxyError.invalidInput(`path: expected a string, got ${typeof guestPath}`);
  }
  if (Buffer.byteLength(guestPath, "utf8") > MAX_GUEST_PATH_BYTES) {
    throw HostProxyError.invalidInput(`${quote(guestPath)}: path is longer than ${MAX_GUEST_PATH_BYTES} bytes`);
  }
  if (!guestPath.startsWith("/")) {
    throw HostProxyError.invalidInput(`${quote(guestPath)}: path must be absolute (start with '/')`);
  }
  for (const segment of guestPath.split("/")) {
    const problem = segmentProblem(segment);
    if (problem !== undefined) throw HostProxyError.invalidInput(`${quote(guestPath)}: path ${problem}`);
  }
  return guestPath;
}

/** Index of the mount whose segments are the longest prefix of `segments`. */
function longestMount(segments: readonly string[], mounts: readonly string[][]): number | undefined {
  let best: number | undefined;
  let bestLength = -1;
  mounts.forEach((mount, index) => {
    if (mount.length <= bestLength || mount.length > segments.length) return;
    if (mount.every((s, i) => segments[i] === s)) {
      best = index;
      bestLength = mount.length;
    }
  });
  return best;
}

/**
 * A raw guest string made safe for a message: JSON-quoted (controls escaped) and cut short.
 * It is the guest's own input, so it can hold no host path the guest did not type.
 */
function quote(raw: string): string {
  const cut = raw.length > 120 ? `${raw.slice(0, 120)}…` : raw;
  return JSON.stringify(cut);
}
