/**
 * Coverage of name lists for grants (labels, calendar ids, memory scopes, agents): built on the
 * proxies' glob language (host-proxies/glob.ts), re-exported here for the catalogue's entries.
 */
import { globCovers } from "../../../host-proxies/glob.js";
import type { Coverage } from "./types.js";
import { COVERED, notCovered } from "./types.js";

export { anyGlobMatches, globCovers, globMatches } from "../../../host-proxies/glob.js";

/**
 * Whether each of `inner` lies within some of `outer`; the first one that does not is named
 * by its index under `path` (e.g. `labels[1]`).
 */
export function globsCover(outer: readonly string[], inner: readonly string[], path: string): Coverage {
  for (const [i, pattern] of inner.entries()) {
    if (!outer.some((o) => globCovers(o, pattern))) {
      return notCovered(`${path}[${i}]`, `${JSON.stringify(pattern)} is not within ${JSON.stringify(outer)}`);
    }
  }
  return COVERED;
}

/** Whether each of `inner` is one of `outer` (exact names, no patterns). */
export function namesCover(outer: readonly string[], inner: readonly string[], path: string): Coverage {
  for (const [i, name] of inner.entries()) {
    if (!outer.includes(name)) {
      return notCovered(`${path}[${i}]`, `${JSON.stringify(name)} is not one of ${JSON.stringify(outer)}`);
    }
  }
  return COVERED;
}
