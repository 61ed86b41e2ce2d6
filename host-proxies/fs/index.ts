/** `clawhive:host/fs`: files inside an instance's mounts, and nothing outside them. */
export { canonicalizeFsPath, MAX_GUEST_PATH_BYTES, MAX_SEGMENT_BYTES } from "./canonicalize.js";
export type { CanonicalizeOptions } from "./canonicalize.js";
export { matchFsOp } from "./matcher.js";
export type { FsDecision, FsGrantOptions } from "./matcher.js";
export { capabilityForOp, FS_DENIAL_REASONS } from "./reasons.js";
export type { FsDenialReason } from "./reasons.js";
export { DEFAULT_SENSITIVE_NAMES } from "./sensitive-names.js";
export { createFsProxy, DEFAULT_MAX_READ_BYTES, DEFAULT_MAX_WRITE_BYTES } from "./proxy.js";
export type { FsProxy, FsProxyOptions } from "./proxy.js";
export { fsHostFunctions, FS_HOST_FUNCTION_NAMES } from "./host-functions.js";
export type { FsHostFunctionName, HostFunction } from "./host-functions.js";
export type {
  CanonicalFsPath,
  FsEntry,
  FsEntryKind,
  FsMount,
  FsMountInfo,
  FsMountMode,
  FsOp,
  FsStat,
} from "./types.js";
export { forbiddenRoots, hostRefusal, isAtOrBelow, SYSTEM_ROOTS } from "./forbidden-roots.js";
export type { ForbiddenRoot, HostRefusal, MountHostRoots } from "./forbidden-roots.js";
export { canonicalHostPath, checkMountHost, createMountHostGuard } from "./host-path.js";
export type { CanonicalHost, MountHostCheck, MountHostGuard, MountHostGuardOptions } from "./host-path.js";
export { closeIdleRoots } from "./shared-roots.js";
export { BULK_CAPS, MAX_CONTEXT_LINES, MAX_GLOBS } from "./bulk/options.js";
export { DEADLINE_GRACE_MS } from "./bulk-ops.js";
export type {
  FsCaseMode,
  FsSearchMatch,
  FsSearchMode,
  FsSearchOptions,
  FsSearchResult,
  FsSkipCounts,
  FsStopReason,
  FsWalkEntry,
  FsWalkOptions,
  FsWalkResult,
} from "./bulk/types.js";
