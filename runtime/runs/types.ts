import type { Denial } from "../../host-proxies/types.js";
import type { LogLevel } from "../../host-proxies/log/index.js";

/** A tool as the runtime offers it: `<plugin>.<tool>`. */
export interface ToolInfo {
  plugin: string;
  name: string;
  qualifiedName: string;
  description: string;
  inputSchema: unknown;
  capabilities: string[];
  risk: "safe" | "guarded" | "unsafe";
}

/**
 * Why a tool call did not return output. `kind` is the tool's own WIT error case (`denied`,
 * `invalid-input`, `not-found`, `failed`) or what the sandbox saw (`trapped`, `deadline`,
 * `memory-cap`, `result-too-large`, `instance-lost`).
 */
export interface ToolCallError {
  kind: string;
  message: string;
  denial?: Denial;
}

export type ToolCallOutcome =
  | { id: string; tool: string; status: "ok"; output: unknown; durationMs: number }
  | { id: string; tool: string; status: "error"; error: ToolCallError; durationMs: number };

export type RunEvent =
  | { type: "tool-call"; id: string; tool: string; input: unknown; at: number }
  | { type: "tool-result"; id: string; tool: string; status: "ok" | "error"; error?: ToolCallError; durationMs: number; at: number }
  | { type: "host-call"; toolCallId: string | undefined; call: string; ok: boolean; denial?: Denial; at: number }
  | { type: "log"; plugin: string; level: LogLevel; message: string; dropped: number; at: number }
  | { type: "instance"; plugin: string; action: "bound" | "replaced"; reason?: string; at: number }
  | { type: "run-ended"; at: number };
