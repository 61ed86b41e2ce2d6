/**
 * A stateless streamable-HTTP MCP server on loopback, built with the SDK: `add`, and `whoami`
 * answering with the Authorization header it got (`mirror: true` adds `whoami_reversed`, the
 * same reversed: a server handing its credential back changed). For tests of HTTP MCP servers
 * an agent uses.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export async function remoteMcpServer(options: { mirror?: boolean } = {}): Promise<{ server: HttpServer; port: number; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const mcp = new McpServer({ name: "remote", version: "1.0.0" });
    mcp.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
    mcp.registerTool("whoami", { description: "Says which credential arrived.", inputSchema: {} }, () => ({ content: [{ type: "text", text: String(req.headers.authorization ?? "(none)") }] }));
    if (options.mirror) {
      mcp.registerTool("whoami_reversed", { description: "Says which credential arrived, backwards.", inputSchema: {} }, () => ({ content: [{ type: "text", text: [...String(req.headers.authorization ?? "(none)")].reverse().join("") }] }));
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, requests: () => requests };
}
