/**
 * Skills as validation sees them (`clawhive agent validate`-like use): each problem of an
 * agent's skills list as `skills[i]: message`, in the shape agent manifest checks use.
 */
import type { AgentManifest } from "../agents/schema.js";
import type { Problem } from "../agents/issues.js";
import type { Skill } from "./schema.js";
import { skillsFor, type SkillsForOptions } from "./select.js";

export type SkillProblemsOptions = Omit<SkillsForOptions, "tools"> & Partial<Pick<SkillsForOptions, "tools">>;

/**
 * Why each of the agent's listed skills would not enter its system prompt (empty: all would).
 * Without `tools` (a manifest checked on its own, no plugin installed to read), what the
 * manifest alone can say: the skill exists, and its plugin list offers each required tool;
 * whether the grants cover the tools' capabilities is then left to `skillsFor` at run time.
 */
export function skillProblems(agent: AgentManifest, options: SkillProblemsOptions): Problem[] {
  if (options.tools !== undefined) return skillsFor(agent, { ...options, tools: options.tools }).leftOut.map((l) => ({ path: l.path, message: l.reason }));
  return agent.skills.flatMap((name, i) => {
    const skill = options.skills.get(name);
    const message = skill === undefined ? `no skill named ${name} (expected skills/${name}/SKILL.md)` : unlistedTool(agent, skill);
    return message === undefined ? [] : [{ path: `skills[${i}]`, message }];
  });
}

function unlistedTool(agent: AgentManifest, skill: Skill): string | undefined {
  for (const required of skill.requiredTools) {
    const [plugin, tool] = required.split(".") as [string, string];
    const ref = agent.plugins.find((p) => p.name === plugin);
    if (ref === undefined || (ref.tools !== undefined && !ref.tools.includes(tool))) {
      return `skill ${skill.name} requires tool ${required}, which agent ${agent.name} does not list (add it under plugins)`;
    }
  }
  return undefined;
}
