import * as v from "valibot";
import type { AgentManifest } from "../../agents/index.js";
import { NotFoundError } from "../../errors.js";
import { agentTools } from "../../runs/agent-tools.js";
import type { Runtime } from "../../runtime.js";
import type { SandboxPlugin } from "../../sandbox/index.js";
import { defaultSkillsDir, loadSkills, skillsFor, skillView, type LoadedSkills } from "../../skills/index.js";
import { inert } from "../../text/inert.js";
import { NAME } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import * as S from "../schemas/resources.js";
import { PAGE_QUERY, pageOf } from "./page.js";
import type { ApiRoute } from "./route.js";

const Query = v.strictObject({ agent: v.optional(NAME), ...PAGE_QUERY });
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
        200: { description: "a page of skills by name, with the unreadable skill files (problems); with ?agent=, the agent's and those left out (left_out)", schema: S.SkillPage },
        404: { description: "no agent of that name" },
      },
      handler: async (c, { query }) => {
        const loaded = await loadSkills(dir);
        if (query.agent === undefined) {
          const page = pageOf(byName([...loaded.skills.values()]), (s) => s.name, query);
          return reply(c, S.SkillPage, { skills: page.items.map(skillView), problems: problemViews(loaded), next_cursor: page.next_cursor });
        }
        const agent = await agentNamed(runtime, query.agent);
        const selected = skillsFor(agent, { skills: loaded.skills, tools: await toolsOf(runtime, agent) });
        const page = pageOf(byName(selected.skills), (s) => s.name, query);
        return reply(c, S.SkillPage, {
          agent: agent.name,
          skills: page.items.map(skillView),
          left_out: selected.leftOut.map((l) => ({ name: l.name, path: l.path, reason: inert(l.reason) })),
          next_cursor: page.next_cursor,
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
      responses: { 200: { description: "the skill with its text", schema: S.SkillBody }, 404: { description: "not_found" } },
      handler: async (c, { params }) => {
        const skill = (await loadSkills(dir)).skills.get(params.name);
        if (skill === undefined) throw new NotFoundError(`no skill named ${params.name} (expected skills/${params.name}/SKILL.md)`);
        return reply(c, S.SkillBody, { skill: { ...skillView(skill), text: skill.body } });
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

function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
