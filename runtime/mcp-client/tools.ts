/**
 * An agent's MCP tools as the runtime offers them: the pinned definitions of each server its
 * manifest lists (pinned for this same program or endpoint), narrowed to the manifest's tool
 * subset. Each is Guarded by default — an MCP server may do anything its process can — and the
 * agent's `approvals.raise_risk` / acknowledged `lower_risk` apply as they do to plugin tools.
 */
import type { AgentManifest } from "../agents/index.js";
import { agentRiskOverride } from "../agents/index.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { toolRisk } from "../policy/engine.js";
import type { ToolInfo } from "../runs/types.js";
import { specHash } from "./definitions.js";
import { pinKey, type McpPin } from "./pins.js";

/** Publisher shown for an MCP server's stand-in manifest. */
export const MCP_PUBLISHER = "mcp-server";

/** The stand-in plugin manifest policy sees for a server: no capabilities of its own, every tool Guarded. */
export function serverManifest(server: string, toolNames: readonly string[]): PluginManifest {
  return {
    name: server,
    version: "0.0.0",
    description: `MCP server ${server}`,
    publisher: MCP_PUBLISHER,
    format: "component",
    source: "",
    capabilities: [],
    tools: Object.fromEntries(toolNames.map((t) => [t, { risk: "guarded" as const }])),
  };
}

/** The agent's MCP tools from `pins` (keyed `agent/server`). */
export function agentMcpTools(agent: AgentManifest, pins: ReadonlyMap<string, McpPin>): ToolInfo[] {
  const offered: ToolInfo[] = [];
  for (const [server, spec] of Object.entries(agent.mcp_servers)) {
    const pin = pins.get(pinKey(agent.name, server));
    // Pinned for another program or endpoint: this one has not been reviewed.
    if (pin === undefined || pin.specHash !== specHash(spec)) continue;
    const manifest = serverManifest(server, pin.tools.map((t) => t.name));
    for (const tool of pin.tools) {
      if (spec.tools !== undefined && !spec.tools.includes(tool.name)) continue;
      const qualifiedName = `${server}.${tool.name}`;
      const risk = toolRisk({ plugin: manifest, name: tool.name, capabilities: [] }, { agentOverride: agentRiskOverride(agent, qualifiedName) }).risk;
      offered.push({
        plugin: server,
        name: tool.name,
        qualifiedName,
        description: tool.description || tool.title || `${tool.mcpName} (MCP server ${server})`,
        inputSchema: tool.inputSchema,
        capabilities: [],
        risk,
        mcp: { server, mcpName: tool.mcpName, hash: tool.hash },
      });
    }
  }
  return offered;
}
