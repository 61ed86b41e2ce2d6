/** MCP: an agent's tools served to MCP clients (stdio and streamable HTTP), one Run per session. */
export { McpSession } from "./session.js";
export type { McpSessionOptions } from "./session.js";
export { McpHttpSessions } from "./http.js";
export type { McpHttpCaller, McpHttpOptions, McpHttpRequestOptions } from "./http.js";
export type { SlotLimits } from "./slots.js";
export { approvalMessage } from "./approval.js";
export { LazyMcpHttpSessions } from "./lazy.js";
export type { McpEndpoint } from "./lazy.js";
