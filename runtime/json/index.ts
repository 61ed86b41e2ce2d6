export {
  CLIENT_JSON,
  GUEST_RESULT_JSON,
  PROTOTYPE_KEYS,
  TOOL_INPUT_JSON,
  TOOL_SCHEMA_JSON,
  type JsonLimits,
  type JsonProblem,
  type JsonProblemCode,
} from "./limits.js";
export { scanJson } from "./scan.js";
export { checkJsonValue } from "./value.js";
export { parseArgument, parseBounded, type Parsed } from "./bounded.js";
export { compileToolSchema, parseToolSchema, ToolSchemaError, type CompileSchemaOptions, type SchemaViolation, type ToolInputValidator } from "./schema.js";
export { dialectOf, MCP_SCHEMA_DIALECT, META_SCHEMA_IDS, PLUGIN_SCHEMA_DIALECT, type SchemaDialect } from "./dialects.js";
export { PATTERN_INPUT_MAX } from "./pattern.js";
