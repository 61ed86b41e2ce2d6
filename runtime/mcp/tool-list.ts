/**
 * An agent's tools as MCP tools: named as the model loop names them on the wire
 * (`plugin__tool`, see llm/tool-names), described and typed by their plugins, with the MCP
 * annotations that say what a client may assume about them. Nothing here is a decision: a tool
 * a client may see is still called through the run's policy, approvals and audit.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { META_SCHEMA_IDS, PLUGIN_SCHEMA_DIALECT } from "../json/index.js";
import { toWireToolName } from "../llm/tool-names.js";
import type { ToolInfo } from "../runs/types.js";

/**
 * The JSON Schema MCP requires for a tool's input: an object schema, whatever the plugin says.
 * A plugin's schema without `$schema` is draft-07 to clawhive (json/dialects.ts), while an MCP
 * client reads one without it as 2020-12 (MCP 2025-11-25, SEP-1613), where `items: [...]`,
 * `additionalItems` or `dependencies` mean something else or nothing: it is sent naming
 * draft-07, so the client validates by the rules the call will be checked by. An MCP server's
 * tool passed on is already read as 2020-12 without `$schema`, and goes as it came.
 */
function inputSchemaOf(tool: ToolInfo): Tool["inputSchema"] {
  const schema = tool.inputSchema;
  if (schema !== null && typeof schema === "object" && !Array.isArray(schema) && (schema as { type?: unknown }).type === "object") {
    const object = schema as Tool["inputSchema"];
    if (tool.mcp !== undefined || Object.hasOwn(object, "$schema")) return object;
    return { $schema: META_SCHEMA_IDS[PLUGIN_SCHEMA_DIALECT], ...object };
  }
  return { type: "object" };
}

/** One MCP tool per runtime tool, in the run's order. */
export function mcpTools(tools: readonly ToolInfo[]): Tool[] {
  return tools.map((tool) => ({
    name: toWireToolName(tool.qualifiedName),
    title: tool.qualifiedName,
    description: `${tool.description}${tool.risk === "safe" ? "" : ` (${tool.risk}: ${tool.risk === "guarded" ? "a person approves each call" : "a person approves each effect"})`}`,
    inputSchema: inputSchemaOf(tool),
    annotations: {
      title: tool.qualifiedName,
      // Safe tools read; everything else may change the world outside the run.
      readOnlyHint: tool.risk === "safe",
      destructiveHint: tool.risk !== "safe",
      openWorldHint: tool.capabilities.some((c) => c.startsWith("http.") || c.startsWith("gmail.") || c.startsWith("calendar.") || c === "shell.exec"),
    },
    _meta: { "clawhive/tool": tool.qualifiedName, "clawhive/risk": tool.risk, "clawhive/capabilities": tool.capabilities },
  }));
}

/** The runtime name of `name` as a client sends it: the wire name, or `plugin.tool` itself. */
export function resolveMcpToolName(tools: readonly ToolInfo[], name: string): ToolInfo | undefined {
  return tools.find((t) => t.qualifiedName === name || toWireToolName(t.qualifiedName) === name);
}
