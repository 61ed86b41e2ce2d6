/**
 * The stable reason codes of fs denials and the capability each op needs. Operators, the
 * policy engine and tests match on these strings, so they never change meaning.
 */
import { HostProxyError } from "../types.js";
import type { FsOp } from "./types.js";

export const FS_DENIAL_REASONS = {
  /** The path is outside every mount, or `..` leaves its mount (even briefly). */
  outsideMount: "outside-mount",
  /** A write, remove or mkdir on a mount bound `ro`. */
  readOnlyMount: "read-only-mount",
  /** A segment matches the sensitive-name deny list and the grant does not lift it. */
  sensitiveName: "sensitive-name",
  /** The path is, or passes through, a symbolic link: symlinks are never followed. */
  symlink: "symlink",
  /** A regular file with more than one name: the other name may be outside every mount. */
  hardLink: "hard-link",
  /** A read or write larger than the proxy's byte cap. */
  sizeCap: "size-cap",
  /** A device, FIFO or socket: reading or writing one can block or have side effects. */
  specialFile: "special-file",
  /** Removing a mount root would change the instance's mounts. */
  mountRoot: "mount-root",
} as const;

export type FsDenialReason = (typeof FS_DENIAL_REASONS)[keyof typeof FS_DENIAL_REASONS];

/** `fs.read` for ops that only look, `fs.write` for ops that change something. */
export function capabilityForOp(op: FsOp): "fs.read" | "fs.write" {
  return op === "read" || op === "list" || op === "stat" ? "fs.read" : "fs.write";
}

/** A denial for `op`, carrying the capability that op needed. */
export function fsDenied(op: FsOp, reason: FsDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(capabilityForOp(op), reason, message);
}
