/** `memory`: long-term memory scopes (`agent`, `user`, `project/*`) a run may read and write. */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { anyGlobMatches, globsCover } from "./glob.js";
import { patternList } from "./names.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, deny, firstUncovered } from "./types.js";

const MemoryResourceSchema = strictObject({
  read: v.pipe(v.optional(patternList("scope", 100), () => []), v.description("scopes or globs the run may recall from")),
  write: v.pipe(v.optional(patternList("scope", 100), () => []), v.description("scopes or globs the run may remember into")),
});
export type MemoryResource = v.InferOutput<typeof MemoryResourceSchema>;

export interface MemoryRequest {
  scope: string;
  access: "read" | "write";
}

function memoryCovers(outer: MemoryResource, inner: MemoryResource): Coverage {
  return firstUncovered(
    () => globsCover(outer.read, inner.read, "read"),
    () => globsCover(outer.write, inner.write, "write"),
  );
}

function memoryMatches(grant: MemoryResource, request: MemoryRequest): Decision {
  if (anyGlobMatches(grant[request.access], request.scope)) return ALLOW;
  return deny("memory", "scope-not-allowed", `${request.access} of memory scope ${JSON.stringify(request.scope)} is not granted`);
}

export const memory: CapabilityEntry<MemoryResource, MemoryRequest> = {
  name: "memory",
  description: "Recall from and remember into the granted long-term memory scopes.",
  resource: MemoryResourceSchema,
  defaultRisk: "guarded",
  riskReason:
    "a memory write outlives the run and is read into later prompts, so one injected instruction could steer every future run (writes Guarded); lower it per tool for read-only use",
  covers: memoryCovers,
  matches: memoryMatches,
};
