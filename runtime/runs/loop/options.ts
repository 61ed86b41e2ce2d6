import type { AgentManifest } from "../../agents/index.js";
import type { AuditLog } from "../../audit/index.js";
import type { LlmProvider } from "../../llm/index.js";
import type { Conversations } from "../conversations.js";
import type { Run } from "../run.js";
import type { SpawnResult, SpawnSubAgentOptions, SubAgentTool } from "../sub-agents.js";
import type { TodoLists } from "../../todo/index.js";
import type { LoopStates } from "./state.js";
import type { ToolRetrieval } from "./tool-retrieval.js";

export interface RunLoopOptions {
  states: LoopStates;
  conversations: Conversations;
  /** The runtime's clock (dates in the prompt); durations use the monotonic clock. */
  now: () => number;
  /** The provider an agent's `model` block names. */
  provider: (agent: AgentManifest) => LlmProvider;
  /** Where each model call is recorded (kind `model_call`). */
  audit: AuditLog;
  /** This runtime node's id, written in the Step journal. */
  node?: string;
  /** Model turns in a row with unusable tool input before the run fails (default 3). */
  maxInvalidTurns?: number;
  /** Identical calls (tool and canonical input) that run; the next one is stopped (default 2). */
  maxRepeats?: number;
  /** Ranks an agent's tools per Step when its manifest sets `tool_retrieval`. */
  toolRetrieval?: ToolRetrieval;
  /** The skills zone of a run's system prompt. */
  skills?: (run: Run) => Promise<string>;
  /** The memory zone of a run's system prompt (MEMORY.md and what `task`, the run's task text, recalls). */
  memory?: (run: Run, task: string) => Promise<string>;
  /**
   * Sub-agents: the tools the model sees for them, how one is spawned, and a child run's
   * outcome once it has ended (`undefined` while it goes on or waits for a person).
   */
  /** Where the todo lists of agents with `todo` live (runtime/todo); absent: no todo tools. */
  todos?: TodoLists;
  subAgents?: {
    tools: (run: Run) => Promise<SubAgentTool[]>;
    spawn: (run: Run, options: SpawnSubAgentOptions) => Promise<SpawnResult>;
    ended: (childRunId: string) => Promise<SpawnResult | undefined>;
  };
}
