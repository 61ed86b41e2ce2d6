/** The log line a ToolCall writes as it ends: what it called, how it ended, how long it took. */
import { runtimeLogger } from "../log/logger.js";
import type { ToolCallOutcome } from "./types.js";

/** Written before the result's event ends the ToolCall's span, so the line names that span (log/context.ts). */
export function logToolCallEnd(outcome: ToolCallOutcome): void {
  runtimeLogger().debug({ tool_call_id: outcome.id, tool: outcome.tool, status: outcome.status, duration_ms: Math.round(outcome.durationMs), ...(outcome.status === "error" ? { error_kind: outcome.error.kind } : {}) }, "tool call");
}
