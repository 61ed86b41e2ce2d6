/**
 * The API's routes, one file a resource, each a list of `defineRoute` declarations that the app
 * mounts (`mountRoutes`) and the OpenAPI document describes.
 */
export { defineRoute, mediaTypeOf, parseJson, reply } from "./route.js";
export type { ApiRoute, FieldsSchema, Method, RawBody, RawBodySpec, ResponseSpec, RouteInput, RouteSpec } from "./route.js";
export { gateRoles, mountRoutes, routeBodyLimits } from "./registry.js";
export { ID, NAME, SECRET_NAME, QUERY_BOOLEAN, QUERY_TIME, queryInt, queryList } from "./fields.js";
export { healthRoute, metricsRoute, openApiRoute, readyRoute } from "./service.js";
export { pluginRoutes, MAX_UPLOAD_BYTES } from "./plugins.js";
export type { PluginRoutesOptions } from "./plugins.js";
export { AgentCatalog } from "./agent-catalog.js";
export type { AgentCatalogOptions, AgentEntry, AgentOrigin } from "./agent-catalog.js";
export { agentRoutes } from "./agents.js";
export { toolRoutes } from "./tools.js";
export { approvalRoutes, approvalView } from "./approvals.js";
export { approvalPatternRoutes, approvalPatternView } from "./approval-patterns.js";
export type { ApprovalDecidedHook, ApprovalRoutesOptions } from "./approvals.js";
export { auditRoutes, MAX_AUDIT_PAGE } from "./audit.js";
export type { AuditRoutesOptions, RunOwnerLookup } from "./audit.js";
export { secretRoutes } from "./secrets.js";
