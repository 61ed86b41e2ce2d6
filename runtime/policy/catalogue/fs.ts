/**
 * `fs.read` and `fs.write`: mounts (`{guest, host, mode}`) plus `allow_sensitive`, the
 * grant's lift of the fs proxy's sensitive-name deny list. Call-time matching is the fs
 * proxy's own canonicaliser and matcher (DESIGN: each proxy owns its matcher); this entry only
 * adapts a grant to them.
 */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { canonicalizeFsPath, capabilityForOp, DEFAULT_SENSITIVE_NAMES, matchFsOp } from "../../../host-proxies/fs/index.js";
import type { FsMountMode, FsOp } from "../../../host-proxies/fs/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { isCanonicalGuest, mountsCover, mountSchema } from "./mounts.js";
import type { GrantMount } from "./mounts.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { COVERED, deny, firstUncovered, notCovered } from "./types.js";

/** One fs operation on a guest path, exactly as the guest sent the path. */
export interface FsRequest {
  op: FsOp;
  path: string;
}

const fold = (s: string): string => s.normalize("NFKC").toLowerCase();
const SENSITIVE = new Set(DEFAULT_SENSITIVE_NAMES.map(fold));

/**
 * Same rule as the fs proxy's `allowSensitiveProblems` (not exported from its door): a typo
 * must neither leave a secret readable nor silently keep a needed file hidden.
 */
function isAllowSensitiveEntry(entry: string): boolean {
  return entry.startsWith("/") ? isCanonicalGuest(entry) && entry !== "/" : SENSITIVE.has(fold(entry));
}

function fsResource<M extends FsMountMode>(mode: M, modeNote: string) {
  return strictObject({
    mounts: v.pipe(
      v.array(mountSchema([mode], modeNote)),
      v.minLength(1, "expected at least one mount"),
      v.check((ms) => new Set(ms.map((m) => m.guest)).size === ms.length, "each guest path may be mounted once"),
    ),
    allow_sensitive: v.optional(
      v.array(
        v.pipe(
          v.string(),
          v.check(isAllowSensitiveEntry, "expected a sensitive-name pattern from the fs deny list (like .env or *.pem) or a canonical guest path (like /workspace/.ssh)"),
        ),
      ),
      () => [],
    ),
  });
}

const FsReadResourceSchema = fsResource("ro", "fs.read mounts are read-only; grant fs.write for rw");
const FsWriteResourceSchema = fsResource("rw", "fs.write mounts are read-write");
/** Both fs capabilities' resource; fs.read's mounts are all `ro`, fs.write's all `rw`. */
export interface FsResource {
  mounts: GrantMount[];
  allow_sensitive: string[];
}

function allowSensitiveCovers(outer: readonly string[], inner: readonly string[]): Coverage {
  const lifted = new Set(outer.map((e) => (e.startsWith("/") ? e : fold(e))));
  for (const [i, entry] of inner.entries()) {
    if (!lifted.has(entry.startsWith("/") ? entry : fold(entry))) {
      return notCovered(`allow_sensitive[${i}]`, `${JSON.stringify(entry)} is not lifted by the wider grant`);
    }
  }
  return COVERED;
}

function fsCovers(outer: FsResource, inner: FsResource): Coverage {
  return firstUncovered(
    () => mountsCover(outer.mounts, inner.mounts),
    () => allowSensitiveCovers(outer.allow_sensitive, inner.allow_sensitive),
  );
}

function fsMatches(capability: "fs.read" | "fs.write") {
  return (grant: FsResource, request: FsRequest): Decision => {
    const needed = capabilityForOp(request.op);
    if (needed !== capability) {
      return deny(needed, "not-granted", `${request.op} needs ${needed}; a ${capability} grant does not allow it`);
    }
    try {
      const path = canonicalizeFsPath(request.path, grant.mounts, { op: request.op });
      return matchFsOp(request.op, path, { allowSensitive: grant.allow_sensitive });
    } catch (err) {
      if (!(err instanceof HostProxyError)) throw err;
      if (err.hostError.tag === "denied") return { allow: false, denial: err.hostError.val };
      return deny(capability, "invalid-path", err.message);
    }
  };
}

export const fsRead: CapabilityEntry<FsResource, FsRequest> = {
  name: "fs.read",
  description: "Read, list and stat files under the granted mounts.",
  resource: FsReadResourceSchema,
  defaultRisk: "safe",
  riskReason: "reads change nothing (DESIGN: reads Safe); the sensitive-name deny list still hides secrets",
  covers: fsCovers,
  matches: fsMatches("fs.read"),
};

export const fsWrite: CapabilityEntry<FsResource, FsRequest> = {
  name: "fs.write",
  description: "Create, change and remove files and directories under the granted mounts.",
  resource: FsWriteResourceSchema,
  defaultRisk: "guarded",
  riskReason: "writes change the user's files (DESIGN: writes Guarded)",
  covers: fsCovers,
  matches: fsMatches("fs.write"),
};
