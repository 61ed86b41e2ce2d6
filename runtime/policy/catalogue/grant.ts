/**
 * A `CapabilityGrant` as manifests and task requests write it: capability name → resource.
 * A capability absent from the map is not granted (deny by default).
 */
import * as v from "valibot";
import { CAPABILITY_CATALOGUE as C, CAPABILITY_NAMES, capabilityCovers } from "./catalogue.js";
import type { CapabilityName, ResourceOf } from "./catalogue.js";
import { strictObject } from "./strict.js";
import type { Coverage } from "./types.js";
import { COVERED, notCovered, under } from "./types.js";

export const CapabilityGrantSchema = strictObject(
  {
    "fs.read": v.pipe(v.optional(C["fs.read"].resource), v.description(C["fs.read"].description)),
    "fs.write": v.pipe(v.optional(C["fs.write"].resource), v.description(C["fs.write"].description)),
    "shell.exec": v.pipe(v.optional(C["shell.exec"].resource), v.description(C["shell.exec"].description)),
    "http.fetch": v.pipe(v.optional(C["http.fetch"].resource), v.description(C["http.fetch"].description)),
    "gmail.read": v.pipe(v.optional(C["gmail.read"].resource), v.description(C["gmail.read"].description)),
    "calendar.read": v.pipe(v.optional(C["calendar.read"].resource), v.description(C["calendar.read"].description)),
    "calendar.add": v.pipe(v.optional(C["calendar.add"].resource), v.description(C["calendar.add"].description)),
    "mail.send": v.pipe(v.optional(C["mail.send"].resource), v.description(C["mail.send"].description)),
    "message.send": v.pipe(v.optional(C["message.send"].resource), v.description(C["message.send"].description)),
    kv: v.pipe(v.optional(C.kv.resource), v.description(C.kv.description)),
    log: v.pipe(v.optional(C.log.resource), v.description(C.log.description)),
    "agent.spawn": v.pipe(v.optional(C["agent.spawn"].resource), v.description(C["agent.spawn"].description)),
    memory: v.pipe(v.optional(C.memory.resource), v.description(C.memory.description)),
    schedule: v.pipe(v.optional(C.schedule.resource), v.description(C.schedule.description)),
  },
  "capability",
);

export type CapabilityGrant = { [N in CapabilityName]?: ResourceOf<N> };

/** Whether every capability `inner` grants is granted by `outer` and lies within it. */
export function grantCovers(outer: CapabilityGrant, inner: CapabilityGrant): Coverage {
  for (const name of CAPABILITY_NAMES) {
    const innerResource = inner[name];
    if (innerResource === undefined) continue;
    const outerResource = outer[name];
    if (outerResource === undefined) return notCovered(name, `${name} is not granted by the wider grant`);
    const coverage = under(name, capabilityCovers(name, outerResource as never, innerResource as never));
    if (!coverage.covered) return coverage;
  }
  return COVERED;
}

/**
 * The tightest `schedule.max_schedules` among `grants` (every layer a run answers to), if any
 * sets one: the policy decides the count before a create, and the store again in the write.
 */
export function tightestScheduleLimit(grants: readonly CapabilityGrant[]): number | undefined {
  const limits = grants.map((g) => g.schedule?.max_schedules).filter((n): n is number => n !== undefined);
  return limits.length === 0 ? undefined : Math.min(...limits);
}
