/** clawhive's programmatic API: what the HTTP API and the CLI wrap. */
export { Runtime } from "./runtime.js";
export type { RuntimeOptions } from "./runtime.js";
export { Run } from "./runs/run.js";
export type { ApprovalNeeded, RunEvent, ToolCallError, ToolCallOutcome, ToolInfo } from "./runs/types.js";
export type { CallToolOptions } from "./runs/run.js";
export type { LeastPrivilegeReport } from "./runs/report.js";
export { ClawhiveError, InvalidInputError, NotFoundError, ConflictError, PluginError, SandboxError } from "./errors.js";
export type { ClawhiveClient } from "./client/index.js";
export { httpClient, ServerError } from "./client/index.js";
export { inProcessClient, type InProcessClientOptions } from "./client/in-process.js";
