/**
 * Sub-agents as the model sees them: one tool per sub-agent, and the tool result a spawn gives.
 */
import type { Denial } from "../../host-proxies/types.js";
import type { AgentManifest } from "../agents/index.js";
import { capabilityMatches, type CapabilityGrant } from "../policy/catalogue/index.js";
import type { RunEndReason, RunStatus } from "./records.js";

/**
 * Sub-agent tools are named `subagent_<agent>`. Agent names hold no `_`, and a plugin tool's
 * wire name always holds `__` (runtime/llm/tool-names.ts), so the two can never collide, and
 * the name is sent to the model unchanged.
 */
export const SUB_AGENT_TOOL_PREFIX = "subagent_";

/** A sub-agent as the model sees it: one tool per agent it may start. */
export interface SubAgentTool {
  name: string;
  /** The agent the tool starts. */
  agent: string;
  description: string;
  inputSchema: { type: "object"; properties: { task: { type: "string"; description: string } }; required: ["task"]; additionalProperties: false };
}

/** What a spawn gives back: a denial, or the child run as far as it went. */
export type SpawnResult =
  | { status: "denied"; denial: Denial }
  | {
      status: RunStatus;
      runId: string;
      traceId: string;
      endReason: RunEndReason | null;
      /** The outcomes of the child's explicit ToolCalls so far. */
      outcomes: unknown[];
      /** A model-driven child's final answer. */
      result: string | null;
      /** The approval the child waits for, when it waits. */
      approvalId: string | null;
    };

/** The agent a sub-agent tool name starts, or `undefined` for any other tool name. */
export function subAgentOfTool(name: string): string | undefined {
  return name.startsWith(SUB_AGENT_TOOL_PREFIX) ? name.slice(SUB_AGENT_TOOL_PREFIX.length) : undefined;
}

/**
 * The tools the model of `agent` sees for its sub-agents: those it lists in `sub_agents` that
 * its `agent.spawn` grant (and the task's, when given) names. Others are left out: the model
 * would only be denied. `agents` gives each child's description.
 */
export function subAgentTools(agent: AgentManifest, options: { agents: readonly AgentManifest[]; taskGrants?: CapabilityGrant | undefined }): SubAgentTool[] {
  const granted = (name: string) =>
    [agent.grants, options.taskGrants].every((g) => g === undefined || (g["agent.spawn"] !== undefined && capabilityMatches("agent.spawn", g["agent.spawn"], { agent: name }).allow));
  return agent.sub_agents.filter(granted).map((name) => {
    const child = options.agents.find((a) => a.name === name);
    return {
      name: `${SUB_AGENT_TOOL_PREFIX}${name}`,
      agent: name,
      description: `Delegate a task to the sub-agent ${name}${child ? `: ${child.description}` : ""}. It works alone with its own tools (never more than yours) and returns its answer.`,
      inputSchema: {
        type: "object",
        properties: { task: { type: "string", description: `what ${name} should do, with everything it needs to know: it does not see this conversation` } },
        required: ["task"],
        additionalProperties: false,
      },
    };
  });
}

/** Listed sub-agents the agent's own `agent.spawn` grant does not name (see runtime/agents/references.ts). */
export { subAgentProblems } from "../agents/references.js";

/**
 * What the parent's model is told of a spawn (the tool result of `subagent_<name>`): the child's
 * answer, or why there is none. JSON like other tool errors, so the model reads one shape.
 */
export function spawnResultContent(result: SpawnResult): { content: string; isError: boolean } {
  const error = (kind: string, message: string, extra: Record<string, unknown> = {}) => ({ content: JSON.stringify({ error: { kind, message, ...extra } }), isError: true });
  if (result.status === "denied") return error("denied", result.denial.message, { denial: result.denial });
  // The run loop never tells its model this (it waits for the child instead); a direct caller may.
  if (result.status === "awaiting_approval") return error("sub-agent-waiting", `sub-agent run ${result.runId} waits for a person to decide approval ${result.approvalId}`);
  if (result.status !== "ended") return error("sub-agent-unfinished", `sub-agent run ${result.runId} has not finished`);
  if (result.endReason !== "completed") return error(`sub-agent-${result.endReason ?? "failed"}`, result.result ?? `sub-agent run ${result.runId} ended ${result.endReason}`);
  return { content: result.result ?? JSON.stringify({ outcomes: result.outcomes }), isError: false };
}
