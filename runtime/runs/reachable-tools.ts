/**
 * The tools of a run a ToolCall could ever be allowed to use: a tool whose every declared
 * capability some policy layer refuses (`unreachableTool`: the plugin or the tool does not
 * declare it, the agent or the task is not granted it, an ancestor lacks it) can only ever be
 * denied, so it is not offered to a client that lists tools. A tool that declares no capability
 * (it computes only, or an MCP server's) is always reachable. Offering is not deciding: a call
 * by name to a tool left out is still decided, and denied, by the run's policy.
 */
import { unreachableTool, type PolicyLayers } from "../policy/engine.js";
import type { PluginManifest } from "../plugins/manifest.js";
import type { ToolInfo } from "./types.js";

export function reachableTools(tools: readonly ToolInfo[], options: { layers: PolicyLayers; manifestOf: (tool: ToolInfo) => PluginManifest | undefined }): ToolInfo[] {
  return tools.filter((tool) => {
    if (tool.capabilities.length === 0) return true;
    const plugin = options.manifestOf(tool);
    return plugin !== undefined && unreachableTool(options.layers, { plugin, name: tool.name, capabilities: tool.capabilities }) === undefined;
  });
}
