import type { Denial } from "../../host-proxies/types.js";
import type { PluginManifest } from "../plugins/manifest.js";
import type { SandboxPlugin } from "../sandbox/index.js";
import type { LogLevel } from "../../host-proxies/log/index.js";

/**
 * An installed plugin a run may use: its manifest at once, its compiled form on first use (a
 * runtime compiles a plugin only when a run first needs it).
 */
export interface PluginHandle {
  readonly manifest: PluginManifest;
  load(): Promise<SandboxPlugin>;
}

/** A tool as the runtime offers it: `<plugin>.<tool>`. */
export interface ToolInfo {
  plugin: string;
  name: string;
  qualifiedName: string;
  description: string;
  inputSchema: unknown;
  capabilities: string[];
  risk: "safe" | "guarded" | "unsafe";
  /** Present for a tool of an external MCP server (`plugin` is then the server's name). */
  mcp?: { server: string; mcpName: string; hash: string };
}

/**
 * Why a tool call did not return output. `kind` is the tool's own WIT error case (`denied`,
 * `invalid-input`, `not-found`, `failed`) or what the sandbox saw (`trapped`, `deadline`,
 * `memory-cap`, `result-too-large`, `instance-lost`), or `approval-denied` / `approval-expired`.
 */
export interface ToolCallError {
  kind: string;
  message: string;
  denial?: Denial;
}

/** The approval a paused ToolCall waits for. */
export interface ApprovalNeeded {
  id: string;
  kind: "tool_call" | "effect";
  tool: string;
  reason: string;
  expiresAt: number;
}

interface OutcomeBase {
  id: string;
  tool: string;
  stepId: string;
  durationMs: number;
}

export type ToolCallOutcome =
  | (OutcomeBase & { status: "ok"; output: unknown })
  | (OutcomeBase & { status: "error"; error: ToolCallError })
  | (OutcomeBase & { status: "approval_required"; approval: ApprovalNeeded });

export type RunEvent =
  | { type: "tool-call"; id: string; tool: string; stepId: string; input: unknown; at: number }
  | { type: "tool-result"; id: string; tool: string; status: ToolCallOutcome["status"]; error?: ToolCallError; durationMs: number; at: number }
  /** `subAgentRunId`: the approval is that sub-agent run's (or its own child's); the run waits for the child to end. */
  | { type: "approval-required"; toolCallId: string; approval: ApprovalNeeded; subAgentRunId?: string; at: number }
  /** `durationMs`: from the call's arrival to its outcome; absent in events stored before it was measured. */
  | { type: "host-call"; toolCallId: string | undefined; call: string; capability: string; ok: boolean; denial?: Denial; durationMs?: number; at: number }
  | { type: "log"; plugin: string; level: LogLevel; message: string; dropped: number; at: number }
  /** What a ToolCall's mail or calendar reads could not read (or read by guessing); also in its result's `warnings`. */
  | { type: "read-warnings"; toolCallId: string; tool: string; count: number; warnings: string[]; at: number }
  | { type: "instance"; plugin: string; action: "bound" | "replaced" | "released"; reason?: string; at: number }
  | { type: "run-ended"; reason?: "completed" | "cancelled" | "failed"; at: number }
  /** The run's todo list as the model just wrote it (`todo_write`, runtime/todo): the whole list. */
  | { type: "todo"; toolCallId: string; scope: string; items: Array<{ id: string; text: string; status: "pending" | "in_progress" | "done" }>; at: number }
  | TextEvent
  | StepEvent;

/**
 * Text the model streamed during Step `stepId`, in order, as it arrived (a line or what came
 * within a short while, see runs/loop/text-events.ts): a client shows the answer while the model
 * still writes it. The Step's whole text is also in its model call's response (the run's result).
 */
export interface TextEvent {
  type: "text";
  stepId: string;
  text: string;
  at: number;
}

/**
 * One Step of a model-driven run: the model's Action and what its call cost. `reason` says why
 * a `finish` Step ended the run when the model did not (a limit, an error, a timeout).
 */
export interface StepEvent {
  type: "step";
  stepId: string;
  action: "respond" | "tool_call" | "finish" | "compact";
  usage: { input_tokens: number; output_tokens: number; cache_read?: number; cache_write?: number } | null;
  model?: string;
  toolCalls?: number;
  reason?: string;
  /** A `compact` Step that compacted: which messages its summary replaced (loop/compaction.ts). */
  compaction?: { n: number; fromSeq: number; throughSeq: number; turns: number; tokensBefore: number; tokensAfter: number };
  at: number;
}
