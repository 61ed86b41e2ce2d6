/**
 * OS errors → `HostProxyError`, worded with the guest path only. Node's own messages name the
 * path they were given (a `/proc/self/fd/…` path here, a host path elsewhere), so they are never
 * passed on, and neither is the original error as `cause`: a cause travels with the error into
 * logs and across the bridge, and host paths never leave the proxy.
 */
import { HostProxyError } from "../types.js";
import { FS_DENIAL_REASONS, fsDenied } from "./reasons.js";
import type { FsOp } from "./types.js";

const INVALID: Readonly<Record<string, string>> = {
  ENOTDIR: "a path component is not a directory",
  EISDIR: "is a directory",
  EEXIST: "already exists",
  ENOTEMPTY: "directory is not empty",
  ENAMETOOLONG: "name is too long",
};

const IO: Readonly<Record<string, string>> = {
  EACCES: "permission denied by the host",
  EPERM: "operation not permitted by the host",
  ENOSPC: "no space left on the host device",
  EDQUOT: "disk quota exceeded on the host",
  EROFS: "the host filesystem is read-only",
  EBUSY: "resource busy",
  EMFILE: "too many open files on the host",
  ENFILE: "too many open files on the host",
};

/** The errno code of a Node system error, if it is one. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  const code = (err as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

export function toHostProxyError(err: unknown, op: FsOp, guest: string): HostProxyError {
  if (err instanceof HostProxyError) return err;
  const code = errnoCode(err);
  if (code === "ENOENT") return HostProxyError.notFound(`${guest}: no such file or directory`);
  // O_NOFOLLOW on a final symlink fails with ELOOP (open(2)).
  if (code === "ELOOP") {
    return fsDenied(op, FS_DENIAL_REASONS.symlink, `${guest}: path is or passes through a symbolic link; symlinks are not followed`);
  }
  // open(2) answers ENXIO for a FIFO opened O_WRONLY|O_NONBLOCK with no reader, and for a
  // socket or a device without a driver: all special files, refused as such.
  if (code === "ENXIO") {
    return fsDenied(op, FS_DENIAL_REASONS.specialFile, `${guest}: is a device, FIFO or socket; only regular files can be read or written`);
  }
  const invalid = code === undefined ? undefined : INVALID[code];
  if (invalid !== undefined) return HostProxyError.invalidInput(`${guest}: ${invalid}`);
  const io = code === undefined ? undefined : IO[code];
  return HostProxyError.io(`${guest}: ${io ?? "i/o error"} (${code ?? "internal"})`);
}
