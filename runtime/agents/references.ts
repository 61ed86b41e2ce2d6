/**
 * Checks of an agent against what lies outside its manifest: the skills it lists (each exists,
 * and its plugins and grants cover the tools the skill requires) and the sub-agents it lists
 * (each named by its `agent.spawn` grant, under a depth limit that lets one start). These are
 * what `clawhive agent validate` and `POST /v1/agents/validate` report as errors. Loading does
 * not refuse them: at run time the skill is left out and the spawn denied, with the same reason.
 */
import { capabilityMatches } from "../policy/catalogue/index.js";
import type { ToolInfo } from "../runs/types.js";
import { skillProblems } from "../skills/validate.js";
import type { Skill } from "../skills/schema.js";
import type { Problem } from "./issues.js";
import type { AgentManifest } from "./schema.js";

export interface ReferenceOptions {
  /** Every skill known (see `loadSkills`). */
  skills: ReadonlyMap<string, Skill>;
  /**
   * The installed plugins' tools, with the capabilities each declares. Without them only what
   * the manifest says is checked: each required tool's plugin is listed (and the tool not left
   * out of its `tools` subset).
   */
  tools?: readonly Pick<ToolInfo, "plugin" | "name" | "qualifiedName" | "capabilities">[] | undefined;
}

/** Problems of the agent's skills and sub-agents (empty: none). */
export function referenceProblems(agent: AgentManifest, options: ReferenceOptions): Problem[] {
  const tools = options.tools === undefined ? undefined : options.tools.filter((t) => offers(agent, t));
  return [...skillProblems(agent, { skills: options.skills, ...(tools === undefined ? {} : { tools }) }), ...subAgentProblems(agent), ...depthProblems(agent)];
}

/** Whether the agent's plugin list (and its `tools` subset) includes `tool`. */
function offers(agent: AgentManifest, tool: Pick<ToolInfo, "plugin" | "name">): boolean {
  const ref = agent.plugins.find((p) => p.name === tool.plugin);
  return ref !== undefined && (ref.tools === undefined || ref.tools.includes(tool.name));
}

/** Sub-agents `agent` lists that its own `agent.spawn` grant does not name. */
export function subAgentProblems(agent: AgentManifest): Problem[] {
  const spawn = agent.grants["agent.spawn"];
  return agent.sub_agents.flatMap((name, i) =>
    spawn !== undefined && capabilityMatches("agent.spawn", spawn, { agent: name }).allow
      ? []
      : [{ path: `sub_agents[${i}]`, message: `${name} is listed but grants.agent.spawn.agents does not name it: the model could never start it` }],
  );
}

/** Sub-agents listed under `limits.max_depth: 0`, which lets no run of this agent start one. */
function depthProblems(agent: AgentManifest): Problem[] {
  if (agent.sub_agents.length === 0 || agent.limits.max_depth > 0) return [];
  return [{ path: "limits.max_depth", message: `is 0, so no sub-agent can ever start, yet sub_agents lists ${agent.sub_agents.join(", ")}: raise it or remove them` }];
}
