import * as v from "valibot";
import type { AgentManifest } from "../../agents/index.js";
import { NotFoundError } from "../../errors.js";
import { agentTools } from "../../runs/agent-tools.js";
import type { Runtime } from "../../runtime.js";
import type { SandboxPlugin } from "../../sandbox/index.js";
import { defaultSkillsDir, loadSkills, skillsFor, skillView, type LoadedSkills } from "../../skills/index.js";
import { inert } from "../../text/inert.js";
import { NAME } from "./fields.js";
import { defineRoute } from "./route.js";
import type { ApiRoute } from "./route.js";

const Query = v.strictObject({ agent: v.optional(NAME) });
const Params = v.strictObject({ name: NAME });

export interface SkillRoutesOptions {
  /** The skills folder; default the project's `skills/`. Read on each request (a few small files). */
  dir?: string;
}

/**
 * `GET /v1/skills`: the skills there are, or with ?agent= which of the agent's skills enter its
 * system prompt and why the others do not. A skill is text only; listing one grants nothing.
 */
export function skillRoutes(runtime: Runtime, options: SkillRoutesOptions = {}): ApiRoute[] {
  const dir = options.dir ?? defaultSkillsDir();
  return [
    defineRoute({
      method: "GET",
      path: "/v1/skills",
      tag: "skills",
      summary: "The skills, or with ?agent= those the agent gets and why it does not get the others",
      description:
        "Without ?agent=: every skill (name, description, required tools, size) and the skill files that could not be read. With ?agent=: the agent's listed skills that enter its system prompt (it has and is granted every tool each requires), and for each one left out, why.",
      roles: ["admin", "client"],
      query: Query,
      responses: {
        200: { description: "`{skills: [{name, description, requires: {tools}, bytes}], problems: [{file, message}]}`, or with ?agent= `{agent, skills, leftOut: [{name, path, reason}]}`" },
        404: { description: "no agent of that name" },
      },
      handler: async (c, { query }) => {
        const loaded = await loadSkills(dir);
        if (query.agent === undefined) {
          return c.json({ skills: [...loaded.skills.values()].map(skillView), problems: problemViews(loaded) });
        }
        const agent = await agentNamed(runtime, query.agent);
        const selected = skillsFor(agent, { skills: loaded.skills, tools: await toolsOf(runtime, agent) });
        return c.json({
          agent: agent.name,
          skills: selected.skills.map(skillView),
          leftOut: selected.leftOut.map((l) => ({ name: l.name, path: l.path, reason: inert(l.reason) })),
        });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/skills/:name",
      tag: "skills",
      summary: "One skill with its text",
      roles: ["admin", "client"],
      params: Params,
      responses: { 200: { description: "`{skill: {name, description, requires, bytes, text}}`" }, 404: { description: "not_found" } },
      handler: async (c, { params }) => {
        const skill = (await loadSkills(dir)).skills.get(params.name);
        if (skill === undefined) throw new NotFoundError(`no skill named ${params.name} (expected skills/${params.name}/SKILL.md)`);
        return c.json({ skill: { ...skillView(skill), text: skill.body } });
      },
    }),
  ];
}

function problemViews(loaded: LoadedSkills) {
  return loaded.problems.map((p) => ({ file: p.file, message: inert(p.message) }));
}

async function agentNamed(runtime: Runtime, name: string): Promise<AgentManifest> {
  await runtime.refreshAgents();
  const agent = runtime.agents().find((a) => a.name === name);
  if (agent === undefined) throw new NotFoundError(`no agent named ${name}`);
  return agent;
}

/** The agent's tools from the registry's manifests, as GET /v1/tools?agent= finds them (nothing is loaded). */
async function toolsOf(runtime: Runtime, agent: AgentManifest) {
  await runtime.refreshPlugins();
  const installed = await runtime.installer.registry.list();
  const plugins = new Map<string, SandboxPlugin>(installed.map((p) => [p.name, { key: `${p.name}@${p.blobSha256}`, manifest: p.manifest, format: p.manifest.format, modules: {} }]));
  return agentTools(agent, { plugins, tools: runtime.tools(), mcpPins: runtime.mcpClient.pins });
}
