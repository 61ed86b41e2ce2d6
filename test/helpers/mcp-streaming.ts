/**
 * A stateful streamable-HTTP MCP server on loopback, built with the SDK (McpServer over
 * StreamableHTTPServerTransport, answers as event streams): tools whose input schemas are zod 4's
 * JSON Schema 2020-12 output (`shape`), the same without `$schema` (`bare`, read as 2020-12 as
 * MCP says), two that cannot be called (a schema that does not compile, an unknown dialect), one
 * with a 2020-12 output schema (`pair`), and `chatty`, which mid-call sends a log notification
 * and progress, then asks the client to ping, elicit, sample and list its roots before answering
 * with what each of those got.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  EmptyResultSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const Point = z.object({ x: z.number(), y: z.number() });
const Shape = z.object({ name: z.string().min(1), corner: z.tuple([z.number(), z.string()]), origin: Point, end: Point, a: z.string().optional(), b: z.string().optional() });

/** zod 4's output (`$schema` 2020-12, `prefixItems`, `$defs`), with 2019-09/2020-12 keywords zod does not write. */
export function shapeSchema(): Record<string, unknown> {
  const { additionalProperties: _, ...schema } = z.toJSONSchema(Shape, { reused: "ref" }) as Record<string, unknown>;
  return { ...schema, unevaluatedProperties: false, dependentRequired: { a: ["b"] } };
}

function bareSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = shapeSchema();
  return schema;
}

const PAIR_OUTPUT = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { p: { type: "array", prefixItems: [{ type: "number" }, { type: "string" }], items: false } }, required: ["p"] };

const TOOLS = [
  { name: "shape", description: "Takes a shape (zod 4 schema).", inputSchema: shapeSchema() },
  { name: "bare", description: "The same, without $schema.", inputSchema: bareSchema() },
  { name: "broken", description: "Its schema does not compile.", inputSchema: { type: "object", properties: { n: { type: "nope" } } } },
  { name: "alien", description: "Its schema names an unknown dialect.", inputSchema: { $schema: "https://example.com/schemas/my-dialect", type: "object" } },
  { name: "pair", description: "Answers a pair, valid or not.", inputSchema: { type: "object", properties: { valid: { type: "boolean" } } }, outputSchema: PAIR_OUTPUT },
  { name: "chatty", description: "Asks the client things mid-call.", inputSchema: { type: "object" } },
];

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });

function mcpServer(): McpServer {
  const mcp = new McpServer({ name: "streaming", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }) as never);
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case "pair":
        return { content: [{ type: "text", text: "pair" }], structuredContent: { p: args.valid === false ? ["one", 1] : [1, "one"] } };
      case "chatty": {
        const got: Record<string, string> = {};
        const ask = async (name: string, send: () => Promise<unknown>) => {
          try {
            await send();
            got[name] = "answered";
          } catch (error) {
            got[name] = `refused ${(error as { code?: number }).code ?? (error as Error).message}`;
          }
        };
        await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "working" } });
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: "unasked", progress: 1, message: "halfway" } });
        await ask("ping", () => extra.sendRequest({ method: "ping" }, EmptyResultSchema, { timeout: 10_000 }));
        await ask("elicitation", () => extra.sendRequest({ method: "elicitation/create", params: { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } }, ElicitResultSchema, { timeout: 10_000 }));
        await ask("sampling", () => extra.sendRequest({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 } }, CreateMessageResultSchema, { timeout: 10_000 }));
        await ask("roots", () => extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema, { timeout: 10_000 }));
        return text(JSON.stringify(got));
      }
      default:
        return text(`${request.params.name}: ok`);
    }
  });
  return mcp;
}

export async function streamingMcpServer(): Promise<{ server: HttpServer; port: number; close: () => Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer(async (req: IncomingMessage, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (req.method !== "POST" || id !== undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, transport) });
    transport.onclose = () => void (transport.sessionId && sessions.delete(transport.sessionId));
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
