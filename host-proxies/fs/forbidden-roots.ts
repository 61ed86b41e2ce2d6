/**
 * Host directories no mount may name: the kernel's views (`/proc`, `/sys`, `/dev`), the
 * machine's configuration and boot files, root's and the user's private dot-folders, and the
 * runtime's own state (data dir, store, secret key, build cache, the install folder). A plugin
 * with a read-only `/proc` mount reads the server's environment through `/proc/1/environ`; one
 * with the data dir mounted reads the store's WAL, secrets and audit log included.
 *
 * This file is pure: it decides on a host path that is already canonical (absolute, symlinks
 * resolved, see host-path.ts) against roots that are canonical too. The runtime-specific roots
 * come from the caller (`MountHostRoots`), never from process state.
 */

/** How far a root reaches: `contains` refuses the root and its ancestors; `all` also what lies inside. */
export type RootReach = "contains" | "all";

export interface ForbiddenRoot {
  /** Absolute, canonical. */
  path: string;
  /** What it is, for the message: "the kernel's process table". */
  what: string;
  reach: RootReach;
  /** A mount strictly inside the data dir is not refused for lying inside this root (see below). */
  dataDirMayLieInside?: boolean;
}

/** The runtime-specific paths, each absolute and canonical (as `createMountHostGuard` makes them). */
export interface MountHostRoots {
  /** The data dir: a mount may lie inside it (relative mounts resolve there) but not be or contain it. */
  dataDir?: string | undefined;
  /** The embedded store file; its `-wal`, `-shm` and `-journal` siblings are refused with it. */
  storeFile?: string | undefined;
  keyFile?: string | undefined;
  buildCacheDir?: string | undefined;
  /** The project's own install folder (its code, its node_modules). */
  installDir?: string | undefined;
  /** The runtime user's home: each `$HOME/.*` entry is refused, and so is what contains them. */
  home?: string | undefined;
  /** Further runtime-owned paths (the mail and calendar folders, per-agent memory files). */
  runtimePaths?: ReadonlyArray<{ path: string; what: string }> | undefined;
}

/**
 * Fixed for every machine. `/` is refused only as itself (it contains everything else);
 * the others in every direction.
 */
export const SYSTEM_ROOTS: readonly ForbiddenRoot[] = Object.freeze([
  { path: "/", what: "the whole host filesystem", reach: "contains" },
  { path: "/proc", what: "the kernel's process table (every process's environment and memory)", reach: "all" },
  { path: "/sys", what: "the kernel's device and driver tree", reach: "all" },
  { path: "/dev", what: "the host's devices", reach: "all" },
  { path: "/boot", what: "the host's kernels and boot loader", reach: "all" },
  { path: "/run", what: "the host's runtime sockets and secrets (/var/run)", reach: "all" },
  { path: "/etc", what: "the host's system configuration", reach: "all" },
  // A runtime run as root with its data dir under /root still mounts its own workspace.
  { path: "/root", what: "the root user's home", reach: "all", dataDirMayLieInside: true },
] satisfies ForbiddenRoot[]);

/** Every root `roots` implies, the fixed ones first. */
export function forbiddenRoots(roots: MountHostRoots): ForbiddenRoot[] {
  const list: ForbiddenRoot[] = [...SYSTEM_ROOTS];
  if (roots.dataDir !== undefined) list.push({ path: roots.dataDir, what: "the runtime's data dir (its store, keys, mail and calendars)", reach: "contains" });
  if (roots.storeFile !== undefined) {
    list.push({ path: roots.storeFile, what: "the runtime's store", reach: "all" });
    for (const suffix of ["-wal", "-shm", "-journal"]) list.push({ path: `${roots.storeFile}${suffix}`, what: `the runtime's store (${suffix.slice(1)} file)`, reach: "all" });
  }
  if (roots.keyFile !== undefined) list.push({ path: roots.keyFile, what: "the runtime's secret key file", reach: "all" });
  if (roots.buildCacheDir !== undefined) list.push({ path: roots.buildCacheDir, what: "the runtime's plugin build cache (code it loads)", reach: "all" });
  // Running from a checkout puts the default data dir (./.clawhive) inside the install folder.
  if (roots.installDir !== undefined) list.push({ path: roots.installDir, what: "the runtime's own install folder", reach: "all", dataDirMayLieInside: true });
  for (const extra of roots.runtimePaths ?? []) list.push({ path: extra.path, what: extra.what, reach: "all" });
  return list;
}

/** The segments of an absolute path (`/a//b/` → `["a", "b"]`). */
function segments(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

/** `inner` is `outer` or below it, compared segment by segment (`/data2` is not below `/data`). */
export function isAtOrBelow(outer: string, inner: string): boolean {
  const o = segments(outer);
  const i = segments(inner);
  return i.length >= o.length && o.every((s, k) => i[k] === s);
}

export interface HostRefusal {
  /** The root that was hit. */
  root: string;
  relation: "is" | "contains" | "lies inside";
  what: string;
  reach: RootReach;
}

/**
 * Why the canonical `host` may not be mounted, or `undefined`. The data dir is where agents'
 * workspaces live (a relative mount resolves there), so a mount strictly inside it is not
 * refused for lying inside `/root`, a `$HOME/.*` entry or the install folder when the data dir
 * itself lives there (`~/.clawhive`, a checkout's `./.clawhive`); the runtime's files inside it
 * (store, key, build cache, mail, …) are still refused by their own roots.
 */
export function hostRefusal(host: string, roots: MountHostRoots): HostRefusal | undefined {
  const { dataDir } = roots;
  const inDataDir = dataDir !== undefined && !isAtOrBelow(host, dataDir) && isAtOrBelow(dataDir, host);
  // Only where the data dir itself lives: a data dir of `/` excuses nothing.
  const excused = (root: string): boolean => inDataDir && isAtOrBelow(root, dataDir);
  for (const root of forbiddenRoots(roots)) {
    const above = isAtOrBelow(host, root.path);
    const below = isAtOrBelow(root.path, host);
    if (above && below) return { root: root.path, relation: "is", what: root.what, reach: root.reach };
    if (above) return { root: root.path, relation: "contains", what: root.what, reach: root.reach };
    if (below && root.reach === "all" && !(root.dataDirMayLieInside === true && excused(root.path))) {
      return { root: root.path, relation: "lies inside", what: root.what, reach: root.reach };
    }
  }
  return homeRefusal(host, roots.home, excused);
}

/** `$HOME/.*`: the entries themselves, what lies inside them, and `$HOME` or above (contains them). */
function homeRefusal(host: string, home: string | undefined, excused: (root: string) => boolean): HostRefusal | undefined {
  if (home === undefined) return undefined;
  const what = "the user's dot-folders (keys, tokens, shell history)";
  if (isAtOrBelow(host, home)) return { root: `${home === "/" ? "" : home}/.*`, relation: "contains", what, reach: "all" };
  if (!isAtOrBelow(home, host)) return undefined;
  const first = segments(host)[segments(home).length];
  if (first === undefined || !first.startsWith(".")) return undefined;
  const entry = `${home === "/" ? "" : home}/${first}`;
  if (host !== entry && excused(entry)) return undefined;
  return { root: entry, relation: host === entry ? "is" : "lies inside", what, reach: "all" };
}

/** The sentence after `<field>: ` for a refusal; `given` is the path as written when it differs. */
export function refusalMessage(host: string, refusal: HostRefusal, given?: string): string {
  const shown = given !== undefined && given !== host ? `${given} (resolved: ${host})` : host;
  const subject = refusal.relation === "is" && host === refusal.root ? `${shown} is ${refusal.what}` : `${shown} ${refusal.relation} ${refusal.root}, ${refusal.what}`;
  const rule = refusal.reach === "all" ? "be, contain or lie inside" : "be or contain";
  return `refused: ${subject}; a mount may not ${rule} it. Mount a folder of its own instead (e.g. one under the data dir)`;
}
