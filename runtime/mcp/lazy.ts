/**
 * The MCP endpoint, loaded on its first request: the SDK (and zod with it) costs a server about
 * 10 MB of RSS, which a server that never serves MCP need not pay. Nothing here imports the SDK.
 */
import type { Runtime } from "../runtime.js";
import type { McpHttpCaller, McpHttpOptions, McpHttpRequestOptions, McpHttpSessions } from "./http.js";

/** What the API needs of an MCP endpoint. */
export type McpEndpoint = Pick<McpHttpSessions, "handle" | "close">;

export class LazyMcpHttpSessions implements McpEndpoint {
  readonly #runtime: Runtime;
  readonly #options: McpHttpOptions;
  #loading: Promise<McpHttpSessions> | undefined;

  constructor(runtime: Runtime, options: McpHttpOptions) {
    this.#runtime = runtime;
    this.#options = options;
  }

  async handle(request: Request, caller: McpHttpCaller, options: McpHttpRequestOptions = {}): Promise<Response> {
    return (await this.#load()).handle(request, caller, options);
  }

  async close(): Promise<void> {
    if (this.#loading) await (await this.#loading).close();
  }

  #load(): Promise<McpHttpSessions> {
    this.#loading ??= import("./http.js").then((m) => new m.McpHttpSessions(this.#runtime, this.#options));
    return this.#loading;
  }
}
