import { posix } from "node:path";
import type { AgentManifest } from "../agents/index.js";

const MOUNTED = ["fs.read", "fs.write", "shell.exec"] as const;

interface MountLike {
  guest: string;
  host: string;
}

/**
 * A schedule's captured grant with every mount host derived again from the firing node's own
 * agent. A firing runs on whichever node claims it, and a mount host is a node-local path (a
 * relative host resolves against that node's data dir): the host captured on the node that made
 * the schedule names a folder of that node, which another node's agent does not cover. The guest
 * path is what the grant means and is the same on every node — a task mount mirrors its agent
 * mount (`<agent guest>/sub` ← `<agent host>/sub`, see policy/catalogue/mounts.ts) — so the host
 * is the firing node's agent mount for that guest, plus the same sub-path. A mount no agent mount
 * covers is left as captured: the coverage check then refuses it, naming it.
 */
export function localGrants(captured: unknown, agent: AgentManifest): unknown {
  if (!isRecord(captured)) return captured;
  const out: Record<string, unknown> = { ...captured };
  for (const capability of MOUNTED) {
    const grant = captured[capability];
    if (!isRecord(grant) || !Array.isArray(grant.mounts)) continue;
    const own = mountsOf((agent.grants as Record<string, unknown>)[capability]);
    out[capability] = { ...grant, mounts: grant.mounts.map((mount: unknown) => (isMount(mount) ? localMount(mount, own) : mount)) };
  }
  return out;
}

function localMount(mount: MountLike, own: readonly MountLike[]): MountLike {
  let best: MountLike | undefined;
  for (const candidate of own) {
    if (!within(mount.guest, candidate.guest)) continue;
    if (best === undefined || candidate.guest.length > best.guest.length) best = candidate;
  }
  if (best === undefined) return mount;
  const sub = posix.relative(best.guest, mount.guest);
  return { ...mount, host: sub === "" ? best.host : `${best.host.replace(/\/+$/, "")}/${sub}` };
}

function within(guest: string, outer: string): boolean {
  return guest === outer || outer === "/" || guest.startsWith(`${outer}/`);
}

function mountsOf(grant: unknown): MountLike[] {
  return isRecord(grant) && Array.isArray(grant.mounts) ? grant.mounts.filter(isMount) : [];
}

function isMount(value: unknown): value is MountLike {
  return isRecord(value) && typeof value.guest === "string" && typeof value.host === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
