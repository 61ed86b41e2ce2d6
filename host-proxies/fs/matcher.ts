/**
 * Decides one op on one canonical path against the grant. Pure: the policy gate calls it to
 * decide and audit, and the proxy calls it again before every effect (defence in depth).
 *
 * Order, first refusal wins: `read-only-mount` (a write on an `ro` mount), then
 * `sensitive-name` (any segment inside the mount on the deny list and not lifted).
 * `outside-mount` is the canonicaliser's (a path outside every mount never gets this far).
 */
import type { Denial } from "../types.js";
import { guestSegments, joinGuest } from "./canonicalize.js";
import { capabilityForOp, FS_DENIAL_REASONS } from "./reasons.js";
import { foldName, isSensitivePattern, sensitivePatterns } from "./sensitive-names.js";
import type { CanonicalFsPath, FsOp } from "./types.js";

export interface FsGrantOptions {
  /**
   * Lifts the deny list. Each entry is either a deny-list pattern (`.env`, `*.pem`; compared
   * case-insensitively), lifted everywhere, or an absolute canonical guest path (`/work/.ssh`),
   * lifting that one entry: what is under it is still matched on its own name, so lifting
   * `/work/.ssh` shows `known_hosts` but not `id_rsa`. A name matching several patterns (like
   * `id_rsa.pem`) needs every one of them lifted, or its path.
   */
  allowSensitive?: readonly string[];
}

export type FsDecision = { allow: true } | { allow: false; denial: Denial };

const WRITES: ReadonlySet<FsOp> = new Set(["write", "remove", "mkdir"]);

export function matchFsOp(op: FsOp, path: CanonicalFsPath, options: FsGrantOptions = {}): FsDecision {
  const capability = capabilityForOp(op);
  if (WRITES.has(op) && path.mount.spec.mode === "ro") {
    return deny(capability, FS_DENIAL_REASONS.readOnlyMount, readOnlyMessage(path.guest, path.mount.spec.guest));
  }
  const base = guestSegments(path.mount.spec.guest);
  for (let i = 0; i < path.segments.length; i++) {
    // Cheap name test first: building every prefix would be quadratic in the depth.
    if (sensitivePatterns(path.segments[i] ?? "").length === 0) continue;
    const prefix = [...base, ...path.segments.slice(0, i + 1)];
    if (isSensitiveEntry(prefix, options)) {
      const entry = joinGuest(prefix);
      return deny(
        capability,
        FS_DENIAL_REASONS.sensitiveName,
        `${path.guest}: ${entry} matches the sensitive-name deny list; a grant's allowSensitive can lift it`,
      );
    }
  }
  return { allow: true };
}

/** A write refused by a read-only mount, with how to mount it writable (the `call` flag, or a manifest's fs.write). */
export function readOnlyMessage(guest: string, mount: string): string {
  return `${guest}: mount ${mount} is read-only; to write there mount it read-write: --mount ${mount}=DIR:rw (clawhive call), or list it under the agent's grants.fs.write.mounts`;
}

/**
 * Whether the entry at `guestSegmentsOfEntry` (mount segments + in-mount segments, its last
 * segment the name) is sensitive and not lifted. Listings use it to hide names.
 */
export function isSensitiveEntry(guestSegmentsOfEntry: readonly string[], options: FsGrantOptions = {}): boolean {
  const name = guestSegmentsOfEntry[guestSegmentsOfEntry.length - 1];
  if (name === undefined) return false;
  const patterns = sensitivePatterns(name);
  if (patterns.length === 0) return false;
  const allow = options.allowSensitive ?? [];
  const entry = joinGuest(guestSegmentsOfEntry);
  if (allow.includes(entry)) return false;
  const lifted = new Set(allow.filter((a) => !a.startsWith("/")).map(foldName));
  return !patterns.every((p) => lifted.has(p));
}

/**
 * Problems with an `allowSensitive` list, one message per bad entry: a typo must not silently
 * leave a secret readable or silently keep a needed file hidden.
 */
export function allowSensitiveProblems(allow: readonly string[]): string[] {
  const problems: string[] = [];
  allow.forEach((entry, i) => {
    if (entry.startsWith("/")) {
      if (joinGuest(guestSegments(entry)) !== entry || guestSegments(entry).some((s) => s === "." || s === "..")) {
        problems.push(`allowSensitive[${i}]: ${JSON.stringify(entry)} is not a canonical guest path`);
      }
    } else if (!isSensitivePattern(entry)) {
      problems.push(`allowSensitive[${i}]: ${JSON.stringify(entry)} is neither a deny-list pattern nor an absolute guest path`);
    }
  });
  return problems;
}

function deny(capability: string, reason: string, message: string): FsDecision {
  return { allow: false, denial: { capability, reason, message } };
}
