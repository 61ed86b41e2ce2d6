/**
 * The shape every catalogue entry has. A capability is a name (`fs.read`), the resource a
 * grant of it names (mounts, hosts, labels…), a default risk, and two pure functions:
 * `covers` for validating that a narrower grant lies within a wider one (task and sub-agent
 * narrowing), and `matches` for deciding one canonical request against one layer's grant.
 *
 * DESIGN.md (Policy): at call time each layer (agent, plugin, task, parent) is checked on its
 * own and the results are ANDed; grants are never intersected as sets. So `matches` only ever
 * sees one grant, and `covers` is a validation aid, not the enforcement.
 */
import type * as v from "valibot";
import type { Decision } from "../../../host-proxies/types.js";
import type { Risk } from "../../plugins/manifest.js";

/** Whether `inner` lies within `outer`; when not, where (a path inside the resource) and why. */
export type Coverage = { covered: true } | { covered: false; path: string; reason: string };

// Decisions are the proxies' matchers' output; the catalogue only re-exports them.
export { ALLOW, deny } from "../../../host-proxies/types.js";
export type { Decision } from "../../../host-proxies/types.js";

export interface CapabilityEntry<R, Q> {
  readonly name: string;
  readonly description: string;
  /** Validates the resource a grant names; its output is what `covers` and `matches` take. */
  readonly resource: v.GenericSchema<unknown, R>;
  readonly defaultRisk: Risk;
  /** Why this default: shown by tooling next to the risk, so the choice is never a mystery. */
  readonly riskReason: string;
  readonly covers: (outer: R, inner: R) => Coverage;
  readonly matches: (grant: R, request: Q) => Decision;
}

export const COVERED: Coverage = Object.freeze({ covered: true });

export function notCovered(path: string, reason: string): Coverage {
  return { covered: false, path, reason };
}

/** Runs coverage checks in order; the first failure wins. */
export function firstUncovered(...checks: (() => Coverage)[]): Coverage {
  for (const check of checks) {
    const result = check();
    if (!result.covered) return result;
  }
  return COVERED;
}

/** Prefixes a failure's path, e.g. `mounts[2]` + `.host`. */
export function under(prefix: string, coverage: Coverage): Coverage {
  if (coverage.covered) return coverage;
  const path = coverage.path === "" ? prefix : coverage.path.startsWith("[") ? `${prefix}${coverage.path}` : `${prefix}.${coverage.path}`;
  return notCovered(path, coverage.reason);
}
