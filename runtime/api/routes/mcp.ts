/**
 * `/mcp`: MCP over streamable HTTP (runtime/mcp), declared like every route so the OpenAPI
 * document describes it and the role check guards it. The app puts the Origin check (MCP's
 * DNS-rebinding defence) and bearer authentication in front (app.ts); the session itself is
 * the MCP room's. Errors of the MCP transport answer JSON-RPC's shape, the API's own (401, 403,
 * 413, 415, 429, 503) the API's.
 */
import type { Context } from "hono";
import * as v from "valibot";
import type { McpEndpoint } from "../../mcp/lazy.js";
import { principalOf, type ApiEnv } from "../auth/index.js";
import { JsonRpcErrorBody, McpPostBody } from "../schemas/mcp.js";
import { NAME } from "./fields.js";
import { defineRoute, type ApiRoute, type ResponseSpec } from "./route.js";

const Query = v.object({ agent: v.optional(v.pipe(NAME, v.description("the agent whose tools a new session serves (needed by initialize)"))) });
const SSE = "text/event-stream";
const SESSION_HEADER = "Mcp-Session-Id names the session (from the initialize answer)";

const notFound: ResponseSpec = { description: "no such session (another token's, closed, idle too long, or on another node): start a new one with initialize", schema: JsonRpcErrorBody };

export function mcpRoutes(endpoint: McpEndpoint): ApiRoute[] {
  const serve = (c: Context<ApiEnv>, input: { query: { agent?: string | undefined }; body?: Uint8Array | undefined }) => {
    const principal = principalOf(c);
    return endpoint.handle(c.req.raw, { tokenId: principal.tokenId, mayApprove: principal.role === "admin" }, { agent: input.query.agent, body: input.body });
  };
  return [
    defineRoute({
      method: "POST",
      path: "/mcp",
      tag: "mcp",
      summary: "Send one MCP message (JSON-RPC); an initialize without Mcp-Session-Id starts a session, which is one Run",
      description: `Accept must list application/json and ${SSE}. ${SESSION_HEADER} on every later request. A request is answered as a stream of JSON-RPC messages (progress, elicitation for approvals, then the response); a notification or response is accepted with 202.`,
      roles: ["client"],
      query: Query,
      raw: { mediaTypes: ["application/json"], description: "one JSON-RPC 2.0 message", jsonSchema: McpPostBody },
      responses: {
        200: { description: "the answer: the server's messages for this request, ending with its response (Mcp-Session-Id set by initialize)", mediaType: SSE },
        202: { description: "a notification or response accepted", empty: true },
        400: { description: "malformed JSON-RPC, a batch, no agent named, or a request without a session that is not an initialize (nothing was started or written)", schema: JsonRpcErrorBody },
        404: notFound,
        406: { description: `Accept does not list application/json and ${SSE}`, schema: JsonRpcErrorBody },
        429: { description: "mcp_principal_sessions_full: this token holds its share of the node's sessions, each serving a request; close one (DELETE /mcp)" },
        503: { description: "mcp_sessions_full: the node's sessions are all taken and none can be freed" },
      },
      handler: (c, { query, raw }) => serve(c, { query, body: raw?.bytes ?? new Uint8Array(0) }),
    }),
    defineRoute({
      method: "GET",
      path: "/mcp",
      tag: "mcp",
      summary: "Open the session's stream of server messages (notifications such as tools/list_changed)",
      description: `${SESSION_HEADER}; Accept must list ${SSE}.`,
      roles: ["client"],
      query: Query,
      responses: {
        200: { description: "the session's standalone stream", mediaType: SSE },
        400: { description: "no Mcp-Session-Id (nothing was started or written)", schema: JsonRpcErrorBody },
        404: notFound,
        406: { description: `Accept does not list ${SSE}`, schema: JsonRpcErrorBody },
        409: { description: "the session's stream is already open", schema: JsonRpcErrorBody },
      },
      handler: (c, { query }) => serve(c, { query }),
    }),
    defineRoute({
      method: "DELETE",
      path: "/mcp",
      tag: "mcp",
      summary: "Close the session: its Run ends with its least-privilege report",
      description: SESSION_HEADER,
      roles: ["client"],
      query: Query,
      responses: {
        200: { description: "closed", empty: true },
        400: { description: "no Mcp-Session-Id (nothing was started or written)", schema: JsonRpcErrorBody },
        404: notFound,
      },
      handler: (c, { query }) => serve(c, { query }),
    }),
  ];
}
