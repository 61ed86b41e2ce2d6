/**
 * Checks across manifests for the agents one agent may start (`sub_agents`, `agent.spawn`,
 * `schedule`): that they exist, and `spawn-wider-agent`. At run time a sub-agent is held to
 * its parent's grant as well as its own (DESIGN: Policy), so a wider child cannot gain
 * capabilities — but its calls outside the parent's grant will all be denied, and its own
 * approval settings (`guarded: run`, lowered risks) would let it do with less asking what the
 * parent would have to ask for. A scheduled run is worse: DESIGN does not hold it to its
 * scheduler's grant, so scheduling a wider agent is a way to act with that agent's grants on
 * a task text this agent wrote. Either way the author should decide.
 */
import { grantCovers } from "../policy/catalogue/index.js";
import type { DangerWarning } from "./dangers.js";
import type { Problem } from "./issues.js";
import type { AgentManifest } from "./schema.js";

interface AgentRef {
  name: string;
  path: string;
  /** Started as a sub-agent (held to this agent's grants) or scheduled (its own run). */
  how: "spawn" | "schedule";
}

function agentRefs(m: AgentManifest): AgentRef[] {
  return [
    ...m.sub_agents.map((name, i) => ({ name, path: `sub_agents[${i}]`, how: "spawn" as const })),
    ...(m.grants["agent.spawn"]?.agents ?? []).map((name, i) => ({ name, path: `grants.agent.spawn.agents[${i}]`, how: "spawn" as const })),
    ...(m.grants.schedule?.agents ?? []).map((name, i) => ({ name, path: `grants.schedule.agents[${i}]`, how: "schedule" as const })),
  ];
}

/** References to agents that are not among `agents`. */
export function missingAgentProblems(m: AgentManifest, agents: ReadonlyMap<string, AgentManifest>): Problem[] {
  return agentRefs(m)
    .filter((r) => !agents.has(r.name))
    .map((r) => ({ path: r.path, message: `no agent named ${r.name} (expected capabilities/${r.name}.yaml)` }));
}

/** Why `child` is wider than `parent`, or `undefined`. */
function widerReason(parent: AgentManifest, child: AgentManifest): string | undefined {
  const coverage = grantCovers(parent.grants, child.grants);
  if (!coverage.covered) return `its grants.${coverage.path}: ${coverage.reason}`;
  if (child.approvals.guarded === "run" && parent.approvals.guarded === "ask") return "it approves Guarded calls for the whole run (approvals.guarded: run) where this agent asks each time";
  const lowered = child.approvals.lower_risk[0];
  if (lowered !== undefined) return `it lowers the risk of ${lowered.tool} to ${lowered.to}`;
  return undefined;
}

export function spawnWiderWarnings(m: AgentManifest, agents: ReadonlyMap<string, AgentManifest>): DangerWarning[] {
  return agentRefs(m).flatMap((ref) => {
    const child = agents.get(ref.name);
    const reason = child === undefined || child.name === m.name ? undefined : widerReason(m, child);
    if (reason === undefined) return [];
    const consequence =
      ref.how === "spawn"
        ? `at run time it is also held to ${m.name}'s grants, so calls beyond them will be denied`
        : `a scheduled run is its own run, with ${ref.name}'s grants, started from a task ${m.name} wrote`;
    return [{
      id: "spawn-wider-agent" as const,
      path: ref.path,
      message: `${ref.how === "spawn" ? "sub-agent" : "scheduled agent"} ${ref.name} is wider than ${m.name}: ${reason}; ${consequence}`,
    }];
  });
}
