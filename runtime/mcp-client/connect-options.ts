/** What connecting to one MCP server takes (connection.ts; confined-server.ts for stdio). */
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import type { SandboxInfo } from "../../host-proxies/shell/index.js";
import type { HttpResource } from "../policy/catalogue/index.js";
import type { ProxiedFetchOptions } from "./http-fetch.js";
import type { McpServerSpec } from "./spec.js";
import type { StdioBounds } from "./stdio-transport.js";

export interface McpConnectOptions {
  /** The server's name in the manifest (errors name it). */
  name: string;
  spec: McpServerSpec;
  sandbox: SandboxInfo;
  hostGuard?: MountHostGuard | undefined;
  secretValue: (name: string) => Promise<string>;
  /** The agent's http.fetch grant (an HTTP server is reached under it). */
  httpGrant?: HttpResource | undefined;
  /** For tests and private deployments: the proxy's resolver and trust anchors. */
  http?: Pick<ProxiedFetchOptions, "resolver" | "ca">;
  bounds?: StdioBounds;
  /** Deadline of one HTTP request, a call's streamed answer included (at least 60 s); the server's call deadline. */
  requestTimeoutMs?: number;
  /** Deadline of the handshake and of tools/list; default 30 s. */
  connectTimeoutMs?: number;
  version: string;
}
