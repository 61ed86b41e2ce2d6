/**
 * What a run's layered grants come to where one number or one table must be chosen for the
 * run's instances: the narrowest `log.per_minute`, and the mount table an instance shows.
 * The policy still checks every call against every layer; these only bound what is offered.
 */
import type { FsMount, FsMountMode } from "../../host-proxies/fs/index.js";
import type { CapabilityGrant } from "../policy/catalogue/index.js";
import { hostBelow } from "../policy/catalogue/mounts.js";
import type { PolicyLayers } from "../policy/engine.js";
import { posix } from "node:path";

/** `log.per_minute` when no layer names one (the catalogue's default). */
export const DEFAULT_LOG_PER_MINUTE = 120;

/** Every layer a call must satisfy: the agent, the task (or a step's elevation), each ancestor. */
function layersOf(layers: PolicyLayers): CapabilityGrant[] {
  const narrow = layers.elevation ?? layers.task;
  return [layers.agent.grants, ...(narrow ? [narrow] : []), ...(layers.parents ?? []).map((p) => p.grants)];
}

/** The lowest `log.per_minute` of the run's layers: every layer's limit holds. */
export function logPerMinute(layers: PolicyLayers): number {
  const limits = layersOf(layers)
    .map((grant) => grant.log?.per_minute)
    .filter((n): n is number => typeof n === "number");
  return limits.length > 0 ? Math.min(...limits) : DEFAULT_LOG_PER_MINUTE;
}

/** One layer's mount table: fs.read mounts read-only, fs.write mounts read-write. */
function mountTable(grant: CapabilityGrant): FsMount[] {
  const byGuest = new Map<string, FsMount>();
  for (const m of grant["fs.read"]?.mounts ?? []) byGuest.set(m.guest, { guest: m.guest, host: m.host, mode: "ro" });
  for (const m of grant["fs.write"]?.mounts ?? []) byGuest.set(m.guest, { guest: m.guest, host: m.host, mode: "rw" });
  return [...byGuest.values()];
}

const narrower = (a: FsMountMode, b: FsMountMode): FsMountMode => (a === "ro" || b === "ro" ? "ro" : "rw");

/** `inner` when it lies at or under `outer` with its guest path mirroring its host; else undefined. */
function within(outer: FsMount, inner: FsMount): FsMount | undefined {
  const below = hostBelow(outer.host, inner.host);
  if (below === undefined || inner.guest !== posix.join(outer.guest, ...below)) return undefined;
  return { guest: inner.guest, host: inner.host, mode: narrower(outer.mode, inner.mode) };
}

/** The directories both tables reach: for each pair, the deeper mount, at the narrower mode. */
function intersect(a: readonly FsMount[], b: readonly FsMount[]): FsMount[] {
  const byGuest = new Map<string, FsMount>();
  for (const x of a) {
    for (const y of b) {
      const both = within(x, y) ?? within(y, x);
      if (!both) continue;
      const seen = byGuest.get(both.guest);
      byGuest.set(both.guest, seen ? { ...both, mode: narrower(seen.mode, both.mode) } : both);
    }
  }
  return [...byGuest.values()];
}

/**
 * The mounts an instance opens and lists: what every layer reaches (a task or a step's grant
 * that narrows a mount to a subfolder, drops one or makes it read-only is what the guest sees),
 * so `fs.mounts()` never shows a folder the run may not use.
 */
export function effectiveMounts(layers: PolicyLayers): FsMount[] {
  const [first, ...rest] = layersOf(layers).map(mountTable);
  return rest.reduce(intersect, first ?? []);
}

/**
 * A note for each agent whose `limits.call_timeout_ms` is above the operator's cap
 * (`sandbox.max_call_timeout_ms`): its calls are stopped at the cap, and the operator should know.
 */
export function callTimeoutNotes(agents: ReadonlyArray<{ name: string; limits: { call_timeout_ms: number } }>, maxCallTimeoutMs: number): string[] {
  return agents
    .filter((agent) => agent.limits.call_timeout_ms > maxCallTimeoutMs)
    .map((agent) => `agent ${agent.name}: limits.call_timeout_ms ${agent.limits.call_timeout_ms} is above sandbox.max_call_timeout_ms ${maxCallTimeoutMs}; its calls are stopped at ${maxCallTimeoutMs} ms`);
}
