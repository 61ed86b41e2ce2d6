/**
 * A mount's host path as the kernel will open it, and the one check every place that accepts a
 * mount applies to it (agent manifests, task grants and elevations, `--mount`, the fs and shell
 * proxies): it may not name a forbidden root (forbidden-roots.ts).
 *
 * Canonicalise once, then decide: the path is resolved component by component the way `open`
 * walks it — a symlink is followed where it stands, so `/tmp/l/..` with `l -> /proc/self` is
 * `/proc`, not the `/tmp` a lexical normalisation would give — as far as it exists; what does not
 * exist yet (a folder the runtime will create) is appended as written.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { isAbsolute, posix } from "node:path";
import { forbiddenRoots, hostRefusal, refusalMessage } from "./forbidden-roots.js";
import type { ForbiddenRoot, MountHostRoots } from "./forbidden-roots.js";

export type CanonicalHost = { ok: true; path: string } | { ok: false; reason: string };

/** Symlinks followed in one walk before giving up (Linux's own limit is 40). */
const MAX_LINKS = 40;

function parts(path: string): string[] {
  return path.split("/").filter((s) => s !== "" && s !== ".");
}

/** `path` (absolute) with symlinks resolved as far as it exists; never throws. */
export function canonicalHostPath(path: string): CanonicalHost {
  if (typeof path !== "string" || !isAbsolute(path) || path.includes("\0")) return { ok: false, reason: "must be an absolute host path" };
  const rest = parts(path);
  let at = "/";
  let links = 0;
  while (rest.length > 0) {
    const segment = rest.shift()!;
    if (segment === "..") {
      at = posix.dirname(at);
      continue;
    }
    const next = posix.join(at, segment);
    let target: string | undefined;
    try {
      target = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Not there yet (or a file in the way, which the opener refuses): the rest is read the
      // way `mkdir -p` (path.resolve) would create it, `..` taken lexically.
      if (code === "ENOENT" || code === "ENOTDIR") return { ok: true, path: posix.join(next, ...rest) };
      return { ok: false, reason: `cannot be resolved (${code ?? "unknown error"} at ${next})` };
    }
    if (target === undefined) {
      at = next;
      continue;
    }
    if (++links > MAX_LINKS) return { ok: false, reason: "has a symlink loop" };
    // Followed where it stands, dangling or not: a dangling link is where a later mkdir lands.
    rest.unshift(...parts(target));
    if (target.startsWith("/")) at = "/";
  }
  return { ok: true, path: at };
}

/** The runtime-specific roots, as given (absolute; resolved by `createMountHostGuard`). */
export type MountHostGuardOptions = MountHostRoots;

/** The forbidden roots of one runtime, canonical, computed once. */
export interface MountHostGuard {
  readonly roots: Readonly<MountHostRoots>;
  /** Every root, for docs and diagnostics. */
  list(): ForbiddenRoot[];
}

function canonicalRoot(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const result = canonicalHostPath(path);
  return result.ok ? result.path : posix.normalize(path);
}

/** Resolves the runtime's paths once (a data dir behind a symlink is compared as its target). */
export function createMountHostGuard(options: MountHostGuardOptions): MountHostGuard {
  const roots: MountHostRoots = Object.freeze({
    dataDir: canonicalRoot(options.dataDir),
    storeFile: canonicalRoot(options.storeFile),
    keyFile: canonicalRoot(options.keyFile),
    buildCacheDir: canonicalRoot(options.buildCacheDir),
    installDir: canonicalRoot(options.installDir),
    home: canonicalRoot(options.home),
    runtimePaths: (options.runtimePaths ?? []).map((p) => ({ path: canonicalRoot(p.path)!, what: p.what })),
  });
  return { roots, list: () => forbiddenRoots(roots) };
}

export type MountHostCheck =
  | { ok: true; host: string }
  /** `what`: the root that was hit, described without the path (for messages that hide hosts). */
  | { ok: false; message: string; what: string };

/**
 * The canonical form of `host` when it may be mounted; otherwise the sentence that follows the
 * field name (`refused: /proc is /proc, the kernel's process table; …`).
 */
export function checkMountHost(host: string, guard: MountHostGuard): MountHostCheck {
  const canonical = canonicalHostPath(host);
  if (!canonical.ok) return { ok: false, message: `refused: ${host} ${canonical.reason}`, what: `a path that ${canonical.reason}` };
  const refusal = hostRefusal(canonical.path, guard.roots);
  if (refusal !== undefined) return { ok: false, message: refusalMessage(canonical.path, refusal, host), what: refusal.what };
  return { ok: true, host: canonical.path };
}
