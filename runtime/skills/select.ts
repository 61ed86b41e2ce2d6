/**
 * Which of an agent's skills enter its system prompt. A skill is text only — it grants nothing
 * and runs nothing — so a skill whose instructions use a tool the agent cannot call would only
 * make the model try and be denied: it is left out, and validation says why.
 */
import type { AgentManifest } from "../agents/schema.js";
import type { CapabilityGrant } from "../policy/catalogue/index.js";
import type { ToolInfo } from "../runs/types.js";
import type { Skill } from "./schema.js";

export interface SkillsForOptions {
  /** Every skill known (see `loadSkills`). */
  skills: ReadonlyMap<string, Skill>;
  /** The agent's tools (its plugin list, narrowed as the agent manifest says; see `agentTools`). */
  tools: readonly Pick<ToolInfo, "qualifiedName" | "capabilities">[];
  /** A task's narrower grant: a tool whose capabilities it leaves out leaves the skill out too. */
  taskGrants?: CapabilityGrant | undefined;
}

/** A skill the agent lists but does not get, and why. */
export interface SkillLeftOut {
  name: string;
  /** Where in the agent manifest: `skills[i]`. */
  path: string;
  reason: string;
}

export interface SelectedSkills {
  skills: Skill[];
  leftOut: SkillLeftOut[];
}

/** The agent's listed skills whose required tools it has and is granted; the rest with reasons. */
export function skillsFor(agent: AgentManifest, options: SkillsForOptions): SelectedSkills {
  const selected: Skill[] = [];
  const leftOut: SkillLeftOut[] = [];
  agent.skills.forEach((name, i) => {
    const skill = options.skills.get(name);
    const reason = skill === undefined ? `no skill named ${name} (expected skills/${name}/SKILL.md)` : missingReason(agent, skill, options);
    if (reason === undefined) selected.push(skill!);
    else leftOut.push({ name, path: `skills[${i}]`, reason });
  });
  return { skills: selected, leftOut };
}

function missingReason(agent: AgentManifest, skill: Skill, options: SkillsForOptions): string | undefined {
  for (const required of skill.requiredTools) {
    const tool = options.tools.find((t) => t.qualifiedName === required);
    if (tool === undefined) return `skill ${skill.name} requires tool ${required}, which agent ${agent.name} does not have (add its plugin and tool to plugins)`;
    const layers: Array<[string, CapabilityGrant]> = [[`agent ${agent.name}`, agent.grants]];
    if (options.taskGrants !== undefined) layers.push(["the task", options.taskGrants]);
    for (const [who, grants] of layers) {
      const absent = tool.capabilities.find((c) => !Object.hasOwn(grants, c));
      if (absent !== undefined) return `skill ${skill.name} requires tool ${required}, which needs ${absent}, not granted to ${who}`;
    }
  }
  return undefined;
}
