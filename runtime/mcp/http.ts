/**
 * MCP over streamable HTTP (MCP 2025-11-25, "Transports"): one `McpSession` per
 * `Mcp-Session-Id`, created by an `initialize` POST that names the agent, reused by the same
 * token only, closed by the client's DELETE, by going idle, or with the runtime. Sessions live
 * on the node that created them: another node answers 404 for them and the client starts a new
 * session, as the spec asks of a client whose session is gone.
 *
 * Only an accepted initialize starts a session's Run: a request without a session that is not
 * exactly one initialize (a stray `tools/list`, malformed JSON, a batch, a GET or DELETE) is
 * answered here and writes nothing — no run row, no audit record, no event. Slots are shared
 * per principal (sessions.ts): one token cannot take every session of a node.
 */
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InvalidInputError } from "../errors.js";
import { CLIENT_JSON, parseBounded } from "../json/index.js";
import type { Runtime } from "../runtime.js";
import { McpSession, type McpSessionOptions } from "./session.js";
import { SessionSlots, type SlotLimits } from "./slots.js";

export interface McpHttpCaller {
  /** The token's id: the session's owner; only it may use the session. */
  tokenId: string;
  /** The token may decide approvals (admin): elicitation answers count as its decisions. */
  mayApprove: boolean;
}

/** One request to the endpoint: the agent a new session serves, and the POST's body (read by the API). */
export interface McpHttpRequestOptions {
  agent?: string | undefined;
  /** The body's bytes; without them the transport reads the request's own body. */
  body?: Uint8Array | undefined;
}

export interface McpHttpOptions extends Pick<McpSessionOptions, "version" | "callTimeoutMs" | "pollMs" | "watchMs">, SlotLimits {
  /** A session unused this long is closed and its Run ended; default 30 minutes. */
  idleMs?: number;
}

interface Entry {
  session: McpSession;
  transport: WebStandardStreamableHTTPServerTransport;
}

export class McpHttpSessions {
  readonly #runtime: Runtime;
  readonly #options: McpHttpOptions;
  readonly #sessions = new Map<string, Entry>();
  readonly #slots: SessionSlots;
  readonly #sweep: NodeJS.Timeout;

  constructor(runtime: Runtime, options: McpHttpOptions) {
    this.#runtime = runtime;
    this.#options = options;
    this.#slots = new SessionSlots(options, { busy: (id) => this.#sessions.get(id)?.session.busy ?? false, end: (id) => this.#end(id) });
    const idleMs = options.idleMs ?? 30 * 60_000;
    this.#sweep = setInterval(() => void this.#closeIdle(idleMs), Math.min(60_000, Math.max(1000, Math.floor(idleMs / 2))));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Serves one HTTP request of the MCP endpoint for an authenticated caller. */
  async handle(request: Request, caller: McpHttpCaller, options: McpHttpRequestOptions = {}): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    const parsed = request.method === "POST" && options.body !== undefined ? parseMessage(options.body) : undefined;
    if (id !== null) {
      const entry = this.#sessions.get(id);
      // Another token's session is as unknown to this caller as a session that never was.
      if (!entry || this.#slots.owner(id) !== caller.tokenId) return jsonRpcError(404, -32001, "Session not found: start a new session with initialize");
      if (parsed !== undefined && !parsed.ok) return parsed.response;
      this.#slots.touch(id);
      return entry.transport.handleRequest(request, parsed === undefined ? undefined : { parsedBody: parsed.value });
    }
    if (request.method !== "POST") return jsonRpcError(400, -32000, "Bad Request: no Mcp-Session-Id: start a session with an initialize POST");
    const message = parsed ?? parseMessage(new Uint8Array(await request.arrayBuffer()));
    if (!message.ok) return message.response;
    if (!isInitializeRequest(message.value)) {
      const what = Array.isArray(message.value) ? "a batch" : "not an initialize request";
      return jsonRpcError(400, -32600, `Bad Request: no Mcp-Session-Id, and the message is ${what}: start a session with one initialize POST`);
    }
    if (options.agent === undefined || options.agent === "") throw new InvalidInputError("agent: name the agent whose tools the session serves, e.g. /mcp?agent=default", { field: "agent" });
    return this.#open(request, caller, { agent: options.agent, message: message.value });
  }

  async #open(request: Request, caller: McpHttpCaller, what: { agent: string; message: unknown }): Promise<Response> {
    const slot = await this.#slots.reserve(caller.tokenId);
    let session: McpSession;
    try {
      session = await McpSession.prepare(this.#runtime, {
        ...this.#options,
        agent: what.agent,
        ownerToken: caller.tokenId,
        mayApprove: caller.mayApprove,
        decidedBy: caller.tokenId,
        clientLabel: `token ${caller.tokenId} over HTTP`,
      });
    } catch (error) {
      slot.release();
      throw error;
    }
    let refused: unknown;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => `mcp_${randomUUID()}`,
      // Called once the transport accepted the initialize, before the server sees it: the Run
      // starts here, so a request the transport refuses (406, 415, 400) started none.
      onsessioninitialized: async (id) => {
        try {
          await session.start();
        } catch (error) {
          refused = error;
          throw error;
        }
        this.#sessions.set(id, { session, transport });
        slot.claim(id);
      },
      onsessionclosed: (id) => void this.#end(id),
    });
    try {
      await session.connect(transport, "tcp");
      const response = await transport.handleRequest(request, { parsedBody: what.message });
      if (refused !== undefined) throw refused;
      return response;
    } finally {
      // Not initialized (refused by the transport or at its start): no session was made.
      if (transport.sessionId === undefined || !this.#sessions.has(transport.sessionId)) {
        slot.release();
        await session.close();
      }
    }
  }

  async #end(id: string): Promise<void> {
    const entry = this.#sessions.get(id);
    if (!entry) return;
    this.#sessions.delete(id);
    this.#slots.free(id);
    await entry.session.close();
    await entry.transport.close().catch(() => undefined);
  }

  async #closeIdle(idleMs: number): Promise<void> {
    for (const id of this.#slots.idleSince(Date.now() - idleMs)) await this.#end(id);
  }

  /** Closes every session (their Runs end): the runtime is stopping. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.allSettled([...this.#sessions.keys()].map((id) => this.#end(id)));
  }
}

type ParsedMessage = { ok: true; value: unknown } | { ok: false; response: Response };

/** A POST's body as JSON-RPC text, bounded like every client's JSON before it is parsed. */
function parseMessage(bytes: Uint8Array): ParsedMessage {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, response: jsonRpcError(400, -32700, "Parse error: the body is not UTF-8 text") };
  }
  const parsed = parseBounded(text, CLIENT_JSON, { at: "body" });
  if (!parsed.ok) return { ok: false, response: jsonRpcError(400, -32700, `Parse error: ${parsed.problem.code === "not-json" ? "the body is not JSON" : parsed.problem.message}`) };
  return { ok: true, value: parsed.value };
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json" } });
}
