/**
 * One live connection to an MCP server with the SDK's `Client`: a stdio server started
 * confined (confined-server.ts), or a streamable HTTP server reached through the http proxy
 * (http-fetch.ts). Every request has a deadline; past it, or when the server breaks the
 * protocol, the connection is closed (a stdio server's processes killed) and the call ends
 * with a clear error. Nothing here waits without a bound.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { startConfinedServer } from "./confined-server.js";
import { definitionsOf, MAX_TOOLS, type DefinitionSet, type ListedTool } from "./definitions.js";
import { McpClientError } from "./errors.js";
import type { McpConnectOptions } from "./connect-options.js";
import { proxiedFetch } from "./http-fetch.js";
import { outputSchemaValidator } from "./schema-validator.js";
import type { ConfinedStdioTransport } from "./stdio-transport.js";

export type { McpConnectOptions } from "./connect-options.js";


const MAX_LIST_PAGES = 16;

export class McpConnection {
  readonly name: string;
  readonly #client: Client;
  readonly #transport: Transport;
  #closed = false;
  /** Why an HTTP server's connection broke mid-stream (a stdio one's transport says it itself). */
  #failure: string | undefined;

  private constructor(name: string, client: Client, transport: Transport) {
    this.name = name;
    this.#client = client;
    this.#transport = transport;
  }

  static async open(options: McpConnectOptions): Promise<McpConnection> {
    let opened: McpConnection | undefined;
    const transport = await transportFor(options, (error) => opened && opened.#broken(error));
    const client = new Client({ name: "clawhive", version: options.version }, { capabilities: {}, jsonSchemaValidator: outputSchemaValidator });
    const connection = new McpConnection(options.name, client, transport);
    opened = connection;
    try {
      await client.connect(transport, { timeout: options.connectTimeoutMs ?? 30_000 });
    } catch (error) {
      throw await connection.#failed(error, "the MCP handshake failed");
    }
    return connection;
  }

  /** The server's tools now, as definitions (bounded in number and size). */
  async definitions(options: { timeoutMs?: number } = {}): Promise<DefinitionSet> {
    const listed: ListedTool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        this.#resetBudget();
        const answer = await this.#client.listTools(cursor === undefined ? {} : { cursor }, { timeout: options.timeoutMs ?? 30_000 });
        listed.push(...answer.tools);
        if (listed.length > MAX_TOOLS) break;
        cursor = answer.nextCursor;
        if (cursor === undefined) break;
      }
      return definitionsOf(listed);
    } catch (error) {
      throw await this.#failed(error, "tools/list failed");
    }
  }

  /** Calls `mcpName`; past `timeoutMs` the connection is closed and `mcp_call_timeout` thrown. */
  async call(mcpName: string, input: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CallToolResult> {
    if (this.#closed) throw new McpClientError("mcp_server_unavailable", `MCP server ${this.name}: the connection is closed`);
    this.#resetBudget();
    try {
      const request = { timeout: options.timeoutMs, maxTotalTimeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
      return (await this.#client.callTool({ name: mcpName, arguments: input }, undefined, request)) as CallToolResult;
    } catch (error) {
      const timedOut = (error as { code?: number }).code === -32001;
      if (timedOut) {
        await this.close();
        throw new McpClientError("mcp_call_timeout", `MCP server ${this.name}: ${mcpName} did not answer within ${options.timeoutMs} ms; the server was stopped`);
      }
      throw await this.#failed(error, `${mcpName} failed`);
    }
  }

  /** Secret values the server was given (a stdio server's env): never shown as they are. */
  get secrets(): readonly string[] {
    return (this.#transport as Partial<ConfinedStdioTransport>).secrets ?? [];
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close().catch(() => undefined);
    await this.#transport.close().catch(() => undefined);
  }

  /** A streamed answer broke: the call waiting on it cannot be answered, so the connection ends now. */
  #broken(error: Error): void {
    if (this.#closed) return;
    this.#failure ??= `the server's answer broke off: ${error.message.slice(0, 300)}`;
    void this.close();
  }

  #resetBudget(): void {
    (this.#transport as Partial<ConfinedStdioTransport>).resetBudget?.call(this.#transport);
  }

  /** The error to throw for `error`: a protocol breach names its cause; the connection is closed. */
  async #failed(error: unknown, what: string): Promise<McpClientError> {
    if (error instanceof McpClientError) return error;
    const failure = (this.#transport as Partial<ConfinedStdioTransport>).failure ?? this.#failure;
    await this.close();
    if (failure !== undefined) {
      const code = failure.startsWith("the server exited") ? "mcp_server_unavailable" : "mcp_protocol_error";
      return new McpClientError(code, `MCP server ${this.name}: ${what}: ${failure}`, { cause: error });
    }
    const message = (error as Error)?.message ?? String(error);
    const code = /timed out|timeout/i.test(message) ? "mcp_call_timeout" : "mcp_server_unavailable";
    return new McpClientError(code, `MCP server ${this.name}: ${what}: ${message.slice(0, 500)}`, { cause: error });
  }
}

async function transportFor(options: McpConnectOptions, onBodyError: (error: Error) => void): Promise<Transport> {
  const { spec, name } = options;
  if (spec.url !== undefined) {
    if (options.httpGrant === undefined) throw new McpClientError("mcp_server_unavailable", `MCP server ${name}: reaching ${spec.url} needs the agent's grants.http.fetch to allow it`);
    // A call's answer streams for as long as the call runs: the request's deadline is the call's.
    const timeoutMs = Math.max(60_000, options.requestTimeoutMs ?? 0);
    const fetch = proxiedFetch(options.httpGrant, { resolveSecret: options.secretValue, ...options.http, timeoutMs, onBodyError });
    return new StreamableHTTPClientTransport(new URL(spec.url), { fetch });
  }
  return startConfinedServer(options);
}
