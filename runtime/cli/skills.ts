import { InvalidInputError } from "../errors.js";
import { defaultSkillsDir, type SkillLeftOut, type SkillView } from "../skills/index.js";
import { parseCommandArgs } from "./args.js";
import { resolveServer, SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { withClient } from "./command-client.js";
import { flagText, inert, jsonOut } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

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
  problems?: Array<{ file: string; message: string }>;
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
  if ((values.agents !== undefined || values.skills !== undefined) && (await resolveServer(values)) !== undefined) {
    throw new InvalidInputError("--agents and --skills do not combine with --server: the server has its own", { field: values.agents !== undefined ? "agents" : "skills" });
  }
  return withClient(
    values,
    async (client) => {
      if (agent === undefined) {
        const list = await client.request<SkillList>("GET", "/v1/skills");
        printList(list, values.json === true);
        return (list.problems ?? []).length > 0 ? 1 : 0;
      }
      const { left_out: leftOut, ...found } = await client.request<Omit<AgentSkills, "leftOut"> & { left_out: SkillLeftOut[] }>("GET", "/v1/skills", { query: { agent } });
      printAgent({ agent: found.agent, skills: found.skills, leftOut }, values.json === true);
      return 0;
    },
    { skillsDir: dir },
  );
}

function printList(list: SkillList, json: boolean): void {
  for (const p of list.problems ?? []) console.error(`skill not loaded: ${p.file}: ${inert(p.message, { newlines: false })}`);
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
