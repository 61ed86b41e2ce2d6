/** A run's tools looked up by name, and readied before its first call. */
import { ConflictError, NotFoundError } from "../errors.js";
import { compileToolSchema } from "../json/index.js";
import type { ToolInfo } from "./types.js";

/** The tool `name` names: `plugin.tool`, or a bare name only one plugin offers. */
export function resolveRunTool(tools: readonly ToolInfo[], name: string, agent: string): ToolInfo {
  const exact = tools.find((t) => t.qualifiedName === name);
  if (exact) return exact;
  const bare = tools.filter((t) => t.name === name);
  if (bare.length === 1) return bare[0]!;
  if (bare.length > 1) {
    throw new ConflictError("ambiguous_tool", `tool ${name} is offered by ${bare.map((t) => t.plugin).join(", ")}; name it as plugin.tool`);
  }
  throw new NotFoundError(`agent ${agent} has no tool ${name}; its tools: ${tools.map((t) => t.qualifiedName).join(", ") || "none"}`);
}

/** The plugins of `tools` (an MCP server's tools have none). */
export function toolPlugins(tools: readonly ToolInfo[]): string[] {
  return [...new Set(tools.filter((t) => t.mcp === undefined).map((t) => t.plugin))];
}

/**
 * Each plugin tool's input schema compiled now, so its first call does not compile it. A schema
 * that does not compile is refused at the call, with its reason (checkToolInput).
 */
export function compileToolSchemas(tools: readonly ToolInfo[]): void {
  for (const tool of tools) {
    if (tool.mcp !== undefined) continue;
    try {
      compileToolSchema(tool.inputSchema, { tool: tool.qualifiedName, installed: true });
    } catch {
      // refused at the call
    }
  }
}
