import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import { resolveServer, SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { withClient } from "./command-client.js";
import { flagText, inert, jsonOut } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import { toolFromView, type ToolView } from "./views.js";

export const toolsHelp = `clawhive tools — the tools of the installed plugins, or those an agent may use

  clawhive tools [--agent NAME] [--json]

  --agent NAME      only what the agent's runs are offered: the plugins its manifest lists, in
                    its version ranges and tool subsets, at the risk they have for it
  --json            print JSON (with input schemas)
  --agents DIR      (on the store) where agent manifests live (default the project's
                    capabilities/; env CLAWHIVE_AGENTS_DIR)

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 the store or server could not be read; 2 bad usage, an unknown agent, an
  agent naming a plugin that is not installed, or a token the server refuses.

  Example:
    clawhive tools --agent writer`;

export async function toolsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, agent: { type: "string" }, agents: { type: "string" }, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError(`tools takes no arguments, got ${positionals.join(" ")}; usage: clawhive tools [--agent NAME] [--json]`);
  const agent = flagText(values, "agent");
  if (values.agents !== undefined && (await resolveServer(values)) !== undefined) throw new InvalidInputError("--agents and --server do not combine: the server has its own agents", { field: "agents" });
  const tools = (await withClient(values, (client) => client.listTools(agent === undefined ? {} : { agent }))).map((view) => toolFromView(view as ToolView));
  if (values.json) {
    console.log(jsonOut(tools));
  } else if (tools.length === 0) {
    console.error(agent === undefined ? "no tools: no plugin is installed" : `agent ${agent} is offered no tools`);
  } else {
    const width = Math.max(...tools.map((t) => t.qualifiedName.length));
    for (const t of tools) console.log(`${t.qualifiedName.padEnd(width)}  ${t.risk.padEnd(7)}  ${inert(t.description, { newlines: false })}`);
  }
  return 0;
}
