/**
 * What every policy layer lifts of the fs deny list for reads, for the proxy's bulk work. A
 * host call is decided on the one path it names; a walk or search names only its start, and the
 * proxy decides each entry inside it. So it gets, per call, each layer's `fs.read`
 * `allow_sensitive`, and shows an entry only when all of them lift it: a task that did not lift
 * `.env` never sees one in a search, whatever its agent lifts.
 */
import type { PolicyLayers } from "./engine.js";

export function fsReadLifts(layers: PolicyLayers): string[][] {
  const grants = [layers.agent.grants, ...(layers.task ? [layers.elevation ?? layers.task] : []), ...(layers.parents ?? []).map((p) => p.grants)];
  // A layer without fs.read refuses the call before the proxy is asked; lifting nothing is the
  // safe answer should it be asked anyway.
  return grants.map((grant) => [...(grant["fs.read"]?.allow_sensitive ?? [])]);
}
