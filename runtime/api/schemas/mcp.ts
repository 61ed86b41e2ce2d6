/**
 * What `/mcp` exchanges, for the OpenAPI document: JSON-RPC 2.0 messages (MCP 2025-11-25,
 * "Base Protocol"). The MCP SDK's transport validates them; these only describe them.
 */
import * as v from "valibot";

const RequestId = v.union([v.string(), v.number()]);

/** One JSON-RPC message: a request (`id` and `method`), a notification (`method`), or a response (`id` and `result` or `error`). */
export const JsonRpcMessage = v.looseObject({
  jsonrpc: v.literal("2.0"),
  id: v.optional(RequestId),
  method: v.optional(v.pipe(v.string(), v.description("e.g. initialize, tools/list, tools/call, notifications/initialized"))),
  params: v.optional(v.record(v.string(), v.unknown())),
  result: v.optional(v.unknown()),
  error: v.optional(v.looseObject({ code: v.number(), message: v.string(), data: v.optional(v.unknown()) })),
});

/** The body of a POST: one message (a batch is refused). */
export const McpPostBody = v.pipe(JsonRpcMessage, v.description("one JSON-RPC message; a session starts with an initialize request without Mcp-Session-Id"));

/** An error the MCP transport answers itself: JSON-RPC's shape, not the API's `{error: {code, message}}`. */
export const JsonRpcErrorBody = v.strictObject({
  jsonrpc: v.literal("2.0"),
  id: v.null(),
  error: v.strictObject({
    code: v.pipe(v.number(), v.description("-32700 parse error, -32600 invalid request, -32000 bad request, -32001 session not found")),
    message: v.string(),
    data: v.optional(v.unknown()),
  }),
});
