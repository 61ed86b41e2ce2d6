/** ToolCall outcomes as MCP `tools/call` results: output as text (and structured when an object), errors as `isError`. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCallError } from "../runs/types.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function okResult(output: unknown): CallToolResult {
  const text = typeof output === "string" ? output : JSON.stringify(output, null, 2);
  return { content: [{ type: "text", text }], ...(isPlainObject(output) ? { structuredContent: output } : {}) };
}

/**
 * A failed ToolCall: the text says what failed and why, the structured part carries the error as
 * the model loop gives it (`kind`, `message`, and a policy denial's capability and reason code).
 */
export function errorResult(error: ToolCallError): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${error.kind}: ${error.message}` }],
    structuredContent: { error: { kind: error.kind, message: error.message, ...(error.denial ? { denial: error.denial } : {}) } },
  };
}
