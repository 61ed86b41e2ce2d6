/** The capability catalogue: every capability clawhive knows, by name. Unknown means denied. */
import type { Risk } from "../../plugins/manifest.js";
import { agentSpawn } from "./agent-spawn.js";
import { calendarAdd, calendarRead } from "./calendar.js";
import { fsRead, fsWrite } from "./fs.js";
import { gmailRead } from "./gmail.js";
import { httpFetch } from "./http.js";
import { kv } from "./kv.js";
import { log } from "./log.js";
import { mailSend } from "./mail-send.js";
import { messageSend } from "./message-send.js";
import { memory } from "./memory.js";
import { schedule } from "./schedule.js";
import { shellExec } from "./shell.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";

export const CAPABILITY_CATALOGUE = Object.freeze({
  "fs.read": fsRead,
  "fs.write": fsWrite,
  "shell.exec": shellExec,
  "http.fetch": httpFetch,
  "gmail.read": gmailRead,
  "calendar.read": calendarRead,
  "calendar.add": calendarAdd,
  "mail.send": mailSend,
  "message.send": messageSend,
  kv,
  log,
  "agent.spawn": agentSpawn,
  memory,
  schedule,
});

export type CapabilityName = keyof typeof CAPABILITY_CATALOGUE;
type EntryOf<N extends CapabilityName> = (typeof CAPABILITY_CATALOGUE)[N];
/** The parsed resource a grant of capability `N` names. */
export type ResourceOf<N extends CapabilityName> = EntryOf<N> extends CapabilityEntry<infer R, infer _Q> ? R : never;
/** The canonical request `matches` decides for capability `N`. */
export type RequestOf<N extends CapabilityName> = EntryOf<N> extends CapabilityEntry<infer _R, infer Q> ? Q : never;

export const CAPABILITY_NAMES: readonly CapabilityName[] = Object.freeze(Object.keys(CAPABILITY_CATALOGUE) as CapabilityName[]);

export function isCapabilityName(name: string): name is CapabilityName {
  return Object.hasOwn(CAPABILITY_CATALOGUE, name);
}

// The entries are heterogeneous; indexing the catalogue by a generic N loses the pairing of
// resource and request types, so these two restore it with one cast each.
function entry<N extends CapabilityName>(name: N): CapabilityEntry<ResourceOf<N>, RequestOf<N>> {
  return CAPABILITY_CATALOGUE[name] as unknown as CapabilityEntry<ResourceOf<N>, RequestOf<N>>;
}

/** Whether grant resource `inner` lies within `outer`, both for capability `name`. */
export function capabilityCovers<N extends CapabilityName>(name: N, outer: ResourceOf<N>, inner: ResourceOf<N>): Coverage {
  return entry(name).covers(outer, inner);
}

/** One layer's decision on one canonical request for capability `name`. */
export function capabilityMatches<N extends CapabilityName>(name: N, grant: ResourceOf<N>, request: RequestOf<N>): Decision {
  return entry(name).matches(grant, request);
}

/**
 * Default risk of each named capability. A name the catalogue does not know is `unsafe`: deny
 * by default means the unknown is never cheaper than the worst known.
 */
export function defaultRisks(capabilities: readonly string[]): Record<string, Risk> {
  return Object.fromEntries(capabilities.map((c) => [c, isCapabilityName(c) ? CAPABILITY_CATALOGUE[c].defaultRisk : "unsafe"]));
}
