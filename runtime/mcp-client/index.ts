/** MCP client: external MCP servers as an agent's tools, confined, pinned, under policy and audit. */
export { McpClient } from "./client.js";
export type { McpClientOptions, McpReview } from "./client.js";
export { McpRunCalls, mcpCapability } from "./run-calls.js";
export type { McpExecution } from "./run-calls.js";
export { agentMcpTools, serverManifest, MCP_PUBLISHER } from "./tools.js";
export { McpClientError } from "./errors.js";
export type { McpClientErrorCode } from "./errors.js";
export { definitionDiff, specHash } from "./definitions.js";
export type { DefinitionDiff, McpToolDefinition } from "./definitions.js";
export { mcpClientMigrations } from "./pins.js";
export type { McpPin } from "./pins.js";
export { McpServersSchema, McpServerSchema } from "./spec.js";
export type { McpServerSpec, McpServers } from "./spec.js";
