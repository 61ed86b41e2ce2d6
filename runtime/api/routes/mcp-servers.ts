/**
 * An agent's MCP servers: review a server's live tool definitions against what was accepted
 * (the diff), and accept them. Accepting names the diff reviewed (`diff_hash`), as a widening
 * plugin upgrade needs explicit acceptance: definitions that changed in between are refused
 * (409) with the new diff, never accepted blindly.
 */
import * as v from "valibot";
import type { McpReview } from "../../mcp-client/index.js";
import type { Runtime } from "../../runtime.js";
import { inert } from "../../text/inert.js";
import { principalOf } from "../auth/index.js";
import { deciderOf } from "../auth/principal.js";
import { ApiError } from "../middleware/api-error.js";
import { NAME } from "./fields.js";
import * as S from "../schemas/resources.js";
import { defineRoute, reply } from "./route.js";
import type { ApiRoute } from "./route.js";

const Params = v.strictObject({ name: NAME, server: NAME });
const AcceptBody = v.strictObject({ diff_hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "expected the diff's hash (64 hex digits) from GET /v1/agents/{name}/mcp-servers/{server}")) });

export function mcpServerRoutes(runtime: Runtime): ApiRoute[] {
  const agentOf = async (name: string, server: string) => {
    await runtime.refreshAgents();
    const agent = runtime.agents().find((a) => a.name === name);
    if (agent === undefined) throw new ApiError("not_found", `no agent named ${name}`, { status: 404 });
    if (agent.mcp_servers[server] === undefined) throw new ApiError("not_found", `agent ${name} has no MCP server ${server}`, { status: 404 });
    return agent;
  };
  return [
    defineRoute({
      method: "GET",
      path: "/v1/agents/:name/mcp-servers/:server",
      tag: "agents",
      summary: "Review an MCP server's tool definitions against the accepted ones",
      description:
        "Starts the server (confined) or reaches it, lists its tools and compares them with the pin: `diff.lines` has `+` new, `-` gone and `~` changed tools. Only accepted, unchanged tools are offered to runs.",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "the review: the pin, the diff (`+` new, `-` gone, `~` changed) and tools skipped", schema: S.McpReviewBody }, 404: { description: "no such agent or server" }, 502: { description: "the server could not be started or broke the protocol" } },
      handler: async (c, { params }) => reply(c, S.McpReviewBody, { review: reviewView(await runtime.mcpClient.review(await agentOf(params.name, params.server), params.server)) }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/agents/:name/mcp-servers/:server/accept",
      tag: "agents",
      summary: "Accept an MCP server's current tool definitions (pin them)",
      roles: ["admin"],
      params: Params,
      body: AcceptBody,
      responses: { 200: { description: "the review with the new pin", schema: S.McpReviewBody }, 404: { description: "no such agent or server" }, 409: { description: "mcp_definitions_changed: not the diff reviewed; review again" } },
      handler: async (c, { params, body }) => {
        const agent = await agentOf(params.name, params.server);
        const review = await runtime.mcpClient.accept(agent, params.server, { diffHash: body.diff_hash, by: deciderOf(principalOf(c)) });
        return reply(c, S.McpReviewBody, { review: reviewView(review) });
      },
    }),
  ];
}

/** Server-written text (descriptions in the diff) is shown inert. */
export function reviewView(review: McpReview) {
  return {
    agent: review.agent,
    server: review.server,
    pinned: review.pinned === undefined ? null : { accepted_at: new Date(review.pinned.acceptedAt).toISOString(), accepted_by: review.pinned.acceptedBy, tools: review.pinned.tools.map((t) => t.name) },
    diff: {
      hash: review.diff.hash,
      added: review.diff.added,
      removed: review.diff.removed,
      changed: review.diff.changed,
      unchanged: review.diff.unchanged,
      lines: review.diff.lines.map((l) => inert(l, { newlines: false })),
    },
    skipped: review.skipped.map((s) => ({ tool: inert(s.mcpName, { newlines: false }), reason: s.reason })),
  };
}
