import { didYouMean } from "../text/suggest.js";
// The one function, not semver's index (which loads every module of the package, ~0.1 s).
import satisfies from "semver/functions/satisfies.js";
import { agentRiskOverride, type AgentManifest } from "../agents/index.js";
import { InvalidInputError, PluginError } from "../errors.js";
import { toolRisk } from "../policy/engine.js";
import type { PluginHandle, ToolInfo } from "./types.js";
import { agentMcpTools, type McpPin } from "../mcp-client/index.js";

/**
 * The tools an agent may use: those of the plugins its manifest lists, at a version inside the
 * listed range, narrowed to the listed tool subset. Anything else does not exist for its runs.
 * Each tool's `risk` is the one its calls get: the plugin's, after the agent's raise or
 * (acknowledged) lower overrides — what the model is told, and what the API and CLI show.
 */
export function agentTools(
  agent: AgentManifest,
  options: { plugins: ReadonlyMap<string, Pick<PluginHandle, "manifest">>; tools: readonly ToolInfo[]; mcpPins?: ReadonlyMap<string, McpPin> | undefined },
): ToolInfo[] {
  const offered: ToolInfo[] = [];
  for (const ref of agent.plugins) {
    const plugin = options.plugins.get(ref.name);
    if (!plugin) throw new PluginError("plugin_missing", `agent ${agent.name}: plugin ${ref.name} is not installed`);
    if (!satisfies(plugin.manifest.version, ref.version)) {
      throw new PluginError(
        "plugin_version_mismatch",
        `agent ${agent.name}: plugin ${ref.name} is at ${plugin.manifest.version}, outside the manifest's range ${ref.version}`,
      );
    }
    const tools = options.tools.filter((t) => t.plugin === ref.name);
    const subset = ref.tools;
    for (const name of subset ?? []) {
      if (!tools.some((t) => t.name === name)) throw new PluginError("tool_missing", `agent ${agent.name}: plugin ${ref.name} has no tool ${name}`);
    }
    for (const tool of subset ? tools.filter((t) => subset.includes(t.name)) : tools) {
      const risk = toolRisk({ plugin: plugin.manifest, name: tool.name, capabilities: tool.capabilities }, { agentOverride: agentRiskOverride(agent, tool.qualifiedName) }).risk;
      offered.push(risk === tool.risk ? tool : { ...tool, risk });
    }
  }
  // An MCP server's tools are offered once a person accepted their definitions (mcp-client).
  if (options.mcpPins) offered.push(...agentMcpTools(agent, options.mcpPins));
  return offered;
}

/** `plugin.tool` or a bare tool name only one plugin offers, among `tools`; errors name `field`. */
export function resolveToolName(tools: readonly ToolInfo[], name: unknown, field: string): string {
  if (typeof name !== "string" || name.length === 0) throw new InvalidInputError(`${field}: expected a tool name like plugin.tool`, { field });
  if (tools.some((t) => t.qualifiedName === name)) return name;
  const bare = tools.filter((t) => t.name === name);
  if (bare.length === 1) return bare[0]!.qualifiedName;
  if (bare.length > 1) throw new InvalidInputError(`${field}: ${name} is offered by ${bare.map((t) => t.plugin).join(", ")}; name it as plugin.tool`, { field });
  const hint = didYouMean(name, tools.flatMap((t) => [t.qualifiedName, t.name]));
  throw new InvalidInputError(`${field}: the agent has no tool ${name}${hint}; its tools: ${tools.map((t) => t.qualifiedName).join(", ") || "none"}`, { field });
}
