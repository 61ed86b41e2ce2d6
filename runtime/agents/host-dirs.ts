/**
 * Mount host directories: resolve, check, canonicalise. A relative host path resolves against
 * the data dir (`baseDir`), never against the manifest's folder or the process cwd: manifests
 * are examples people copy between machines, and the data dir is the one place the operator
 * chose for what agents may touch (`./workspace` → `<data dir>/workspace`).
 *
 * Hosts are then realpath'd, so every later comparison (overlap warnings, `covers` for
 * narrowing) sees the directory the fs proxy will actually open, not a symlink to it.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, posix, resolve } from "node:path";
import { checkMountHost, createMountHostGuard } from "../../host-proxies/fs/index.js";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { hostBelow } from "../policy/catalogue/index.js";
import type { GrantMount } from "../policy/catalogue/index.js";
import type { Problem } from "./issues.js";
import type { AgentManifest } from "./schema.js";

export const MOUNT_CAPABILITIES = ["fs.read", "fs.write", "shell.exec"] as const;

export interface HostDirOptions {
  /** The data dir relative host paths resolve against. */
  baseDir: string;
  /** Default true. False skips the disk (lint a manifest on a machine without the dirs). */
  checkHostDirs?: boolean | undefined;
  /**
   * The runtime's forbidden mount roots (runtime/runs/mount-guard.ts). Without it: the fixed
   * system roots and `baseDir` as the data dir. Applied with or without `checkHostDirs`.
   */
  hostGuard?: MountHostGuard | undefined;
}

export interface LocatedMount {
  capability: (typeof MOUNT_CAPABILITIES)[number];
  index: number;
  mount: GrantMount;
}

/** Every mount in the grants, with where it was written. */
export function grantMounts(m: AgentManifest): LocatedMount[] {
  return MOUNT_CAPABILITIES.flatMap((capability) => (m.grants[capability]?.mounts ?? []).map((mount, index) => ({ capability, index, mount })));
}

const STAT_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "directory does not exist",
  ENOTDIR: "directory does not exist (a parent is not a directory)",
  EACCES: "directory is not accessible to the runtime",
  ELOOP: "host path has a symlink loop",
};

function canonicalHost(abs: string, check: boolean): { host: string } | { problem: string } {
  if (!check) return { host: abs };
  try {
    if (!statSync(abs).isDirectory()) return { problem: `not a directory: ${abs}` };
    return { host: realpathSync.native(abs) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    return { problem: `${STAT_ERRORS[code] ?? `cannot be opened (${code || "unknown error"})`}: ${abs}` };
  }
}

/** `dir` absolute, symlinks resolved when it exists: the form mount hosts are compared in. */
export function canonicalDir(dir: string): string {
  const abs = resolve(dir);
  try {
    return realpathSync.native(abs);
  } catch {
    return abs;
  }
}

/** A copy of `m` with every mount host absolute and canonical, and the hosts that failed. */
export function resolveHostDirs(m: AgentManifest, options: HostDirOptions): { manifest: AgentManifest; problems: Problem[] } {
  const manifest = structuredClone(m);
  const base = resolve(options.baseDir);
  const problems: Problem[] = [];
  const guard = options.hostGuard ?? createMountHostGuard({ dataDir: base });
  for (const { capability, index, mount } of grantMounts(manifest)) {
    const path = `grants.${capability}.mounts[${index}].host`;
    // Joined, not resolved: `..` after a symlink is the kernel's to walk (checkMountHost does).
    const abs = isAbsolute(mount.host) ? mount.host : `${base}/${mount.host}`;
    const allowed = checkMountHost(abs, guard);
    if (!allowed.ok) {
      problems.push({ path, message: allowed.message });
      continue;
    }
    const check = options.checkHostDirs ?? true;
    // A lint keeps the lexical form, which the runtime's mkdir of data-dir folders compares.
    const result = canonicalHost(check ? allowed.host : resolve(base, mount.host), check);
    if ("problem" in result) problems.push({ path, message: result.problem });
    else mount.host = result.host;
  }
  return { manifest, problems };
}

/**
 * One guest path, one directory: if a guest path is mounted in several capabilities, or
 * nested under another capability's mount, the hosts must mirror each other. The instance gets
 * one mount table (the union); if fs.read mapped `/work` → A and fs.write `/work/out` → C,
 * the fs.read layer would approve reading `/work/out/x` as `A/out/x` while the proxy read
 * `C/x`, a directory granted only for writing. Nesting within one capability is the fs
 * proxy's ordinary nested-mount case and needs no mirroring.
 */
export function mountConsistencyProblems(m: AgentManifest): Problem[] {
  const mounts = grantMounts(m);
  const problems: Problem[] = [];
  mounts.forEach((b, j) => {
    for (const a of mounts.slice(0, j)) {
      if (a.capability === b.capability) continue;
      const [outer, inner] = a.mount.guest.length <= b.mount.guest.length ? [a, b] : [b, a];
      const rel = hostBelow(outer.mount.guest, inner.mount.guest);
      if (rel === undefined) continue;
      const expected = posix.join(outer.mount.host, ...rel);
      if (inner.mount.host === expected) continue;
      problems.push({
        path: `grants.${b.capability}.mounts[${b.index}].host`,
        message: `guest ${b.mount.guest} must map to the same host directory as grants.${a.capability}.mounts[${a.index}] (${a.mount.guest} → ${a.mount.host}); one guest path, one directory`,
      });
      return;
    }
  });
  return problems;
}
