/**
 * hyper-mcp's plugin ABI v2 (tuananh/hyper-mcp, `src/plugin.rs` PluginV2): the module exports
 * `list_tools` and `call_tool`, each taking a JSON request with the MCP request's context.
 *
 * - `list_tools` input `{"context": {"id", "_meta"}}`, output an MCP ListToolsResult
 *   `{"tools": [{name, title?, description?, inputSchema, outputSchema?, annotations?}]}`;
 * - `call_tool` input `{"request": {"name", "arguments"}, "context": {"id", "_meta"}}`, output an
 *   MCP CallToolResult `{"content": [...], "isError"?, "structuredContent"?}` (read as a `call`
 *   output, extism-shapes.ts).
 *
 * Mapped to clawhive's tools as a servlet's are: capabilities are plugin.json's (v2 says none),
 * risk is plugin.json's, a description falls back to the title. Pure functions.
 */
import { GUEST_RESULT_JSON, parseBounded } from "../json/index.js";
import { WRAPPED_INPUT_JSON, type ExtismToolDefaults } from "./extism-shapes.js";
import type { ToolDescriptor } from "./types.js";

/** The request context hyper-mcp sends: the MCP request's id (a number here) and empty meta. */
function context(id: number): { id: number; _meta: Record<string, never> } {
  return { id, _meta: {} };
}

export function listToolsInput(id: number): string {
  return JSON.stringify({ context: context(id) });
}

/** The `call_tool` request for tool `name` with the host-checked JSON `input`; undefined when it is not JSON. */
export function callToolInput(name: string, input: string, id: number): string | undefined {
  const parsed = parseBounded(input === "" ? "{}" : input, WRAPPED_INPUT_JSON);
  if (!parsed.ok) return undefined;
  return JSON.stringify({ request: { name, arguments: parsed.value }, context: context(id) });
}

export function parseListTools(text: string, defaults: ExtismToolDefaults): ToolDescriptor[] {
  const parsed = parseBounded(text, GUEST_RESULT_JSON, { at: "list_tools" });
  if (!parsed.ok) throw new TypeError(parsed.problem.code === "not-json" ? "list_tools: the output is not JSON" : parsed.problem.message);
  const root = parsed.value;
  const tools = isObject(root) ? root.tools : undefined;
  if (!Array.isArray(tools)) throw new TypeError('list_tools: expected {"tools": [...]}');
  return tools.map((tool: unknown, i) => {
    const at = `list_tools: tools[${i}]`;
    if (!isObject(tool)) throw new TypeError(`${at}: expected an object`);
    const { name, title, description, inputSchema } = tool;
    if (typeof name !== "string" || name.length === 0) throw new TypeError(`${at}.name: expected a string`);
    if (description !== undefined && description !== null && typeof description !== "string") throw new TypeError(`${at}.description: expected a string`);
    if (title !== undefined && title !== null && typeof title !== "string") throw new TypeError(`${at}.title: expected a string`);
    if (!isObject(inputSchema)) throw new TypeError(`${at}.inputSchema: expected a JSON Schema object`);
    return {
      name,
      description: typeof description === "string" ? description : typeof title === "string" ? title : "",
      inputSchema: JSON.stringify(inputSchema),
      capabilities: [...defaults.capabilities],
      risk: Object.hasOwn(defaults.risks, name) ? defaults.risks[name]! : "unsafe",
    };
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
