/** The API's edge: limits, error shape, path and body validation. Each file one middleware. */
export { ApiError, errorBody } from "./api-error.js";
export type { ErrorBody } from "./api-error.js";
export { catchNonErrors, errorHandler, notFoundHandler } from "./error-handler.js";
export type { ErrorHandlerOptions, InternalErrorLog } from "./error-handler.js";
export { limitBody, DEFAULT_BODY_BYTES } from "./body-limit.js";
export type { BodyLimitOptions } from "./body-limit.js";
export { capConcurrency, DEFAULT_MAX_IN_FLIGHT } from "./concurrency.js";
export type { ConcurrencyCapOptions } from "./concurrency.js";
export { rejectAmbiguousPaths } from "./paths.js";
export { validParams, pathParam, NAME, ID } from "./params.js";
export { jsonBody } from "./json-body.js";
export { baselineHeaders } from "./response-headers.js";
export { corsFor } from "./cors.js";
export { checkMcpOrigin } from "./mcp-origin.js";
export type { CorsOptions } from "./cors.js";
export { issuesError, parseAt } from "./issues.js";
