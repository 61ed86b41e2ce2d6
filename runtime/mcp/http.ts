/**
 * MCP over streamable HTTP (MCP 2025-11-25, "Transports"): one `McpSession` per
 * `Mcp-Session-Id`, created by an `initialize` POST that names the agent, reused by the same
 * token only, closed by the client's DELETE, by going idle, or with the runtime. Sessions live
 * on the node that created them: another node answers 404 for them and the client starts a new
 * session, as the spec asks of a client whose session is gone.
 */
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ClawhiveError, InvalidInputError } from "../errors.js";
import type { Runtime } from "../runtime.js";
import { McpSession, type McpSessionOptions } from "./session.js";

export interface McpHttpCaller {
  /** The token's id: the session's owner; only it may use the session. */
  tokenId: string;
  /** The token may decide approvals (admin): elicitation answers count as its decisions. */
  mayApprove: boolean;
}

export interface McpHttpOptions extends Pick<McpSessionOptions, "version" | "callTimeoutMs" | "pollMs" | "watchMs"> {
  /** A session unused this long is closed and its Run ended; default 30 minutes. */
  idleMs?: number;
  /** Sessions open at once on this node; default 64 (more are answered 503). */
  maxSessions?: number;
}

interface Entry {
  session: McpSession;
  transport: WebStandardStreamableHTTPServerTransport;
  owner: string;
  lastUsed: number;
}

export class McpHttpSessions {
  readonly #runtime: Runtime;
  readonly #options: McpHttpOptions;
  readonly #sessions = new Map<string, Entry>();
  readonly #sweep: NodeJS.Timeout;
  #opening = 0;

  constructor(runtime: Runtime, options: McpHttpOptions) {
    this.#runtime = runtime;
    this.#options = options;
    const idleMs = options.idleMs ?? 30 * 60_000;
    this.#sweep = setInterval(() => void this.#closeIdle(idleMs), Math.min(60_000, Math.max(1000, Math.floor(idleMs / 2))));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Serves one HTTP request of the MCP endpoint for an authenticated caller. */
  async handle(request: Request, caller: McpHttpCaller, agent: string | undefined): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const entry = this.#sessions.get(id);
      // Another token's session is as unknown to this caller as a session that never was.
      if (!entry || entry.owner !== caller.tokenId) return jsonRpcError(404, -32001, "Session not found: start a new session with initialize");
      entry.lastUsed = Date.now();
      return entry.transport.handleRequest(request);
    }
    if (request.method !== "POST") return jsonRpcError(400, -32000, "Bad Request: no Mcp-Session-Id: start a session with an initialize POST");
    if (agent === undefined || agent === "") throw new InvalidInputError("agent: name the agent whose tools the session serves, e.g. /mcp?agent=default", { field: "agent" });
    if (this.#sessions.size + this.#opening >= (this.#options.maxSessions ?? 64)) {
      throw new ClawhiveError("mcp_sessions_full", "too many MCP sessions are open on this node; close one (DELETE /mcp) or retry later", { status: 503 });
    }
    return this.#open(request, caller, agent);
  }

  async #open(request: Request, caller: McpHttpCaller, agent: string): Promise<Response> {
    this.#opening++;
    let session: McpSession;
    try {
      session = await McpSession.open(this.#runtime, {
        ...this.#options,
        agent,
        ownerToken: caller.tokenId,
        mayApprove: caller.mayApprove,
        decidedBy: caller.tokenId,
        clientLabel: `token ${caller.tokenId} over HTTP`,
      });
    } finally {
      this.#opening--;
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => `mcp_${randomUUID()}`,
      onsessioninitialized: (id) => void this.#sessions.set(id, { session, transport, owner: caller.tokenId, lastUsed: Date.now() }),
      onsessionclosed: (id) => void this.#end(id),
    });
    await session.server.connect(transport);
    const response = await transport.handleRequest(request);
    // Not an initialize (or a refused one): no session was made, so its Run ends now.
    if (transport.sessionId === undefined || !this.#sessions.has(transport.sessionId)) await session.close();
    return response;
  }

  async #end(id: string): Promise<void> {
    const entry = this.#sessions.get(id);
    if (!entry) return;
    this.#sessions.delete(id);
    await entry.session.close();
    await entry.transport.close().catch(() => undefined);
  }

  async #closeIdle(idleMs: number): Promise<void> {
    const now = Date.now();
    for (const [id, entry] of this.#sessions) if (now - entry.lastUsed > idleMs) await this.#end(id);
  }

  /** Closes every session (their Runs end): the runtime is stopping. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.allSettled([...this.#sessions.keys()].map((id) => this.#end(id)));
  }
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json" } });
}
