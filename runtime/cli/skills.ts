import type { AgentManifest } from "../agents/index.js";
import { InvalidInputError, NotFoundError } from "../errors.js";
import { agentTools } from "../runs/agent-tools.js";
import type { SandboxPlugin } from "../sandbox/index.js";
import { defaultSkillsDir, loadSkills, skillsFor, skillView, type SkillLeftOut, type SkillView } from "../skills/index.js";
import { parseCommandArgs } from "./args.js";
import { apiClient, SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import type { ApiClient } from "./client.js";
import { flagText, inert, jsonOut } from "./render.js";
import { openRuntime, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const skillsHelp = `clawhive skills — the skills there are, or which of an agent's skills it gets

  clawhive skills [--agent NAME] [--json]

  A skill (skills/<name>/SKILL.md) is text an agent's model is given: it grants nothing and runs
  nothing. An agent lists its skills; a skill enters its system prompt only when the agent has,
  and is granted, every tool the skill requires.

  --agent NAME      the agent's skills: those it gets, and why it does not get the others
  --json            print JSON
  --skills DIR      (on the store) the skills folder (default the project's skills/)
  --agents DIR      (on the store) where agent manifests live (default the project's
                    capabilities/; env CLAWHIVE_AGENTS_DIR)

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 a skill file could not be read (listed on stderr), or the store or server
  could not be read; 2 bad usage, an unknown agent, or a token the server refuses.

  Example:
    clawhive skills --agent assistant`;

interface SkillList {
  skills: SkillView[];
  problems: Array<{ file: string; message: string }>;
}
interface AgentSkills {
  agent: string;
  skills: SkillView[];
  leftOut: SkillLeftOut[];
}

export async function skillsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    ...SERVER_FLAGS,
    agent: { type: "string" },
    agents: { type: "string" },
    skills: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length > 0) throw new InvalidInputError(`skills takes no arguments, got ${positionals.join(" ")}; usage: clawhive skills [--agent NAME] [--json]`);
  const agent = flagText(values, "agent");
  const dir = flagText(values, "skills") ?? defaultSkillsDir();
  const api = await apiClient(values);
  if (api !== undefined && (values.agents !== undefined || values.skills !== undefined)) {
    throw new InvalidInputError("--agents and --skills do not combine with --server: the server has its own", { field: values.agents !== undefined ? "agents" : "skills" });
  }
  if (agent === undefined) {
    const list = api !== undefined ? await api.get<SkillList>("/v1/skills") : await listLocal(dir);
    printList(list, values.json === true);
    return list.problems.length > 0 ? 1 : 0;
  }
  const found = api !== undefined ? await agentOnServer(api, agent) : await agentLocal(values, { agent, dir });
  printAgent(found, values.json === true);
  return 0;
}

async function agentOnServer(api: ApiClient, agent: string): Promise<AgentSkills> {
  const { left_out: leftOut, ...found } = await api.get<Omit<AgentSkills, "leftOut"> & { left_out: SkillLeftOut[] }>("/v1/skills", { agent });
  return { agent: found.agent, skills: found.skills, leftOut };
}

async function listLocal(dir: string): Promise<SkillList> {
  const loaded = await loadSkills(dir);
  return { skills: [...loaded.skills.values()].map(skillView), problems: loaded.problems.map((p) => ({ file: p.file, message: p.message })) };
}

async function agentLocal(values: Readonly<Record<string, unknown>>, options: { agent: string; dir: string }): Promise<AgentSkills> {
  const loaded = await loadSkills(options.dir);
  const runtime = await openRuntime(values);
  try {
    const agent: AgentManifest | undefined = runtime.agents().find((a) => a.name === options.agent);
    if (agent === undefined) throw new NotFoundError(`no agent named ${options.agent}; 'clawhive agent list' shows the agents`);
    const installed = await runtime.installer.registry.list();
    const plugins = new Map<string, SandboxPlugin>(installed.map((p) => [p.name, { key: `${p.name}@${p.blobSha256}`, manifest: p.manifest, format: p.manifest.format, modules: {} }]));
    const selected = skillsFor(agent, { skills: loaded.skills, tools: agentTools(agent, { plugins, tools: runtime.tools(), mcpPins: runtime.mcpClient.pins }) });
    return { agent: agent.name, skills: selected.skills.map(skillView), leftOut: selected.leftOut };
  } finally {
    await runtime.close();
  }
}

function printList(list: SkillList, json: boolean): void {
  for (const p of list.problems) console.error(`skill not loaded: ${p.file}: ${inert(p.message, { newlines: false })}`);
  if (json) return console.log(jsonOut(list));
  if (list.skills.length === 0) return console.error("no skills");
  const width = Math.max(...list.skills.map((s) => s.name.length));
  for (const s of list.skills) {
    console.log(`${s.name.padEnd(width)}  ${inert(s.description, { newlines: false })}  (requires: ${s.requires.tools.join(", ") || "nothing"})`);
  }
}

function printAgent(found: AgentSkills, json: boolean): void {
  if (json) return console.log(jsonOut(found));
  if (found.skills.length === 0 && found.leftOut.length === 0) return console.error(`agent ${found.agent} lists no skills`);
  for (const s of found.skills) console.log(`${s.name}  in the system prompt  (${s.bytes} bytes)`);
  for (const l of found.leftOut) console.log(`${l.name}  left out: ${inert(l.reason, { newlines: false })}`);
}
