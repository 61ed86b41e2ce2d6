/** clawhive's programmatic API: what the HTTP API and the CLI wrap. */
export { Runtime } from "./runtime.js";
export type { RuntimeOptions } from "./runtime.js";
export { Run } from "./runs/run.js";
export type { RunGrant, RunGrantInput } from "./runs/grant.js";
export type { RunEvent, ToolCallError, ToolCallOutcome, ToolInfo } from "./runs/types.js";
export { ClawhiveError, InvalidInputError, NotFoundError, ConflictError, PluginError, SandboxError } from "./errors.js";
