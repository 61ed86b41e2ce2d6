import { ClawhiveError } from "../errors.js";

export type McpClientErrorCode =
  /** bubblewrap is not usable here: a stdio server is never run unconfined. */
  | "mcp_no_sandbox"
  /** The server could not be started or reached, or ended the connection. */
  | "mcp_server_unavailable"
  /** The server broke the protocol or its bounds (malformed JSON-RPC, an oversized message, a flood). */
  | "mcp_protocol_error"
  /** A call passed its deadline; the server process was killed. */
  | "mcp_call_timeout"
  /** The accepted diff is not the server's current one (it changed since it was reviewed). */
  | "mcp_definitions_changed";

const STATUS: Record<McpClientErrorCode, number> = {
  mcp_no_sandbox: 503,
  mcp_server_unavailable: 502,
  mcp_protocol_error: 502,
  mcp_call_timeout: 504,
  mcp_definitions_changed: 409,
};

export class McpClientError extends ClawhiveError {
  constructor(code: McpClientErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: STATUS[code], cause: options.cause });
  }
}
