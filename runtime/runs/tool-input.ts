import type { Denial } from "../../host-proxies/types.js";
import { checkJsonValue, compileToolSchema, MCP_SCHEMA_DIALECT, PLUGIN_SCHEMA_DIALECT, TOOL_INPUT_JSON, ToolSchemaError } from "../json/index.js";
import type { ToolInfo } from "./types.js";

/** Why a ToolCall's input was refused before any guest saw it. */
export interface InputRefusal {
  /** `invalid-input` (the caller may correct it) or `tool-schema-invalid` (the tool cannot be called). */
  kind: "invalid-input" | "tool-schema-invalid";
  denial: Denial;
  /**
   * What the audit record and the run's events hold in place of the input: the input itself
   * when it is plain JSON within the limits, else a summary, since a deep, cyclic or
   * prototype-naming value must not reach the writers that would walk or merge it.
   */
  recorded: unknown;
}

const CAPABILITY = "tool-input";

/**
 * Checks a ToolCall's input on the host, before the risk gate, an approval or a guest: plain
 * JSON within `TOOL_INPUT_JSON` (depth, size, values, no cycle, no `__proto__`, `constructor` or
 * `prototype` key anywhere), an object, and valid against the tool's input schema (compiled
 * once per schema). Returns the refusal, or `undefined` when the input may go on.
 */
export function checkToolInput(tool: Pick<ToolInfo, "qualifiedName" | "inputSchema" | "mcp">, input: unknown): InputRefusal | undefined {
  const problem = checkJsonValue(input, TOOL_INPUT_JSON, { at: "input" });
  if (problem) {
    return { kind: "invalid-input", denial: { capability: CAPABILITY, reason: problem.code, message: problem.message }, recorded: { refused: problem.code, at: problem.path } };
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    const got = input === null ? "null" : Array.isArray(input) ? "an array" : `a ${typeof input}`;
    return { kind: "invalid-input", denial: { capability: CAPABILITY, reason: "not-an-object", message: `input: expected a JSON object, got ${got}` }, recorded: input };
  }
  let validate;
  try {
    // A plugin's schema was checked whole at its install; an MCP server's is checked here (and
    // was at review). Each is read in its source's default dialect when it names none.
    const mcp = tool.mcp !== undefined;
    validate = compileToolSchema(tool.inputSchema, { tool: tool.qualifiedName, installed: !mcp, dialect: mcp ? MCP_SCHEMA_DIALECT : PLUGIN_SCHEMA_DIALECT });
  } catch (error) {
    if (!(error instanceof ToolSchemaError)) throw error;
    const message = `${error.message}; the tool cannot be called until its ${tool.mcp === undefined ? "plugin is fixed and upgraded" : "server is fixed and its definitions accepted again"}`;
    return { kind: "tool-schema-invalid", denial: { capability: CAPABILITY, reason: "tool-schema-invalid", message }, recorded: input };
  }
  const violation = validate(input);
  if (violation) return { kind: "invalid-input", denial: { capability: CAPABILITY, reason: "schema-mismatch", message: violation.message }, recorded: input };
  return undefined;
}
