import type { TodoTool } from "../../todo/index.js";
import { buildSystemPrompt, DEFAULT_CONTEXT_TOKENS, fitRequest, type LlmRequest, type Message, type ToolSpec } from "../../llm/index.js";
import type { SubAgentTool } from "../sub-agents.js";
import type { AgentManifest } from "../../agents/index.js";
import { agentMounts } from "../agent-setup.js";
import type { ToolInfo } from "../types.js";
import type { FsMount } from "../../../host-proxies/fs/index.js";

/** The tools the model sees: exactly the run's tools, with their plugins' JSON Schemas. */
export function toolSpecs(tools: readonly ToolInfo[]): ToolSpec[] {
  return tools.map((t) => ({
    name: t.qualifiedName,
    description: t.description,
    input_schema: isObject(t.inputSchema) ? t.inputSchema : { type: "object", properties: {} },
  }));
}

/**
 * The environment zone: facts about where the agent runs that the model cannot know (today's
 * date, its folders and whether it may write them, which tools wait for a person).
 */
export function environmentZone(agent: AgentManifest, options: { tools: readonly ToolInfo[]; now: number; mounts?: readonly FsMount[] }): string[] {
  const lines = [`agent: ${agent.name}`, `today: ${new Date(options.now).toISOString().slice(0, 10)} (UTC)`];
  // The run's own mounts when given (a task grant may narrow the agent's): the model is told of
  // the folders the run's instances open, no others.
  for (const mount of options.mounts ?? agentMounts(agent).mounts) lines.push(`folder ${mount.guest}: ${mount.mode === "rw" ? "read and write" : "read only"}`);
  const guarded = options.tools.filter((t) => t.risk !== "safe").map((t) => t.qualifiedName);
  if (guarded.length > 0) lines.push(`tools that may wait for a person's approval: ${guarded.join(", ")}`);
  return lines;
}

/** What a Step's request is built from. */
export interface StepRequestParts {
  tools: readonly ToolInfo[];
  messages: readonly Message[];
  now: number;
  skills?: string;
  memory?: string;
  /** Summaries of compacted earlier messages (see loop/compaction.ts). */
  history?: string;
  subAgents?: readonly SubAgentTool[];
  mounts?: readonly FsMount[];
  todo?: readonly TodoTool[];
  /** Tools the loop answers itself besides sub-agents and todo (e.g. `tools.search`). */
  extraTools?: readonly ToolSpec[];
}

/** One Step's request before it is fitted to the context window. */
export function stepRequest(agent: AgentManifest, options: StepRequestParts): LlmRequest {
  return {
    system: buildSystemPrompt({ rules: agent.system_prompt, environment: environmentZone(agent, options), skills: options.skills ?? "", memory: options.memory ?? "", history: options.history ?? "" }),
    messages: [...options.messages],
    tools: [...toolSpecs(options.tools), ...(options.extraTools ?? []), ...[...(options.subAgents ?? []), ...(options.todo ?? [])].map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }))],
    max_tokens: agent.model.max_tokens,
    ...(agent.model.temperature === undefined ? {} : { temperature: agent.model.temperature }),
  };
}

/**
 * One Step's request: the manifest's system prompt (rules) and the environment zone, the run's
 * tools, and the messages (conversation history, then this run's) fitted to the context window.
 */
export function buildStepRequest(agent: AgentManifest, options: StepRequestParts): LlmRequest {
  // A request that still does not fit is sent anyway: the provider's refusal names the problem.
  return fitRequest(stepRequest(agent, options), { contextTokens: agent.model.context_tokens ?? DEFAULT_CONTEXT_TOKENS }).request;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
