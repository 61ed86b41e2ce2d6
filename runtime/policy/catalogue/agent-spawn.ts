/**
 * `agent.spawn`: which agents a run may start as sub-agents. Exact names, no globs: the set of
 * agents grows over time, and a pattern would silently grant agents written later.
 */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { namesCover } from "./glob.js";
import { AgentNameListSchema } from "./names.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, deny } from "./types.js";

const SpawnResourceSchema = strictObject({
  agents: v.pipe(AgentNameListSchema, v.minLength(1, "expected at least one agent name")),
});
export type SpawnResource = v.InferOutput<typeof SpawnResourceSchema>;

export interface SpawnRequest {
  agent: string;
}

function spawnCovers(outer: SpawnResource, inner: SpawnResource): Coverage {
  return namesCover(outer.agents, inner.agents, "agents");
}

function spawnMatches(grant: SpawnResource, request: SpawnRequest): Decision {
  if (grant.agents.includes(request.agent)) return ALLOW;
  return deny("agent.spawn", "agent-not-allowed", `agent ${JSON.stringify(request.agent)} is not granted`);
}

export const agentSpawn: CapabilityEntry<SpawnResource, SpawnRequest> = {
  name: "agent.spawn",
  description: "Start the named agents as sub-agents of this run.",
  resource: SpawnResourceSchema,
  defaultRisk: "safe",
  riskReason:
    "spawning itself has no effect: the sub-agent's every call is gated by its own risks and checked against this run's grant too (DESIGN: Policy); see spawn-wider-agent",
  covers: spawnCovers,
  matches: spawnMatches,
};
