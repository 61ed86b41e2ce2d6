/** The loop that drives a runtime's model-driven runs, wired to its skills, memory and sub-agents. */
import { createProvider } from "../llm/index.js";
import type { RuntimeOptions } from "../options.js";
import { RunLoop } from "../runs/loop/index.js";
import { runMemoryZone } from "../runs/run-memory.js";
import { endedSubAgent, subAgentTools } from "../runs/sub-agents.js";
import { skillsFor, skillsZone } from "../skills/index.js";
import { agentList } from "./agents.js";
import { secretValue } from "./secrets.js";
import type { RuntimeState } from "./state.js";

export function runLoop(s: RuntimeState, modelProvider: RuntimeOptions["modelProvider"], llm: RuntimeOptions["llm"] = {}): RunLoop {
  const retry = { ...(llm.timeoutMs === undefined ? {} : { timeoutMs: llm.timeoutMs }), ...(llm.maxAttempts === undefined ? {} : { maxAttempts: llm.maxAttempts }) };
  return (s.loop = new RunLoop({
    states: s.loopStates,
    conversations: s.conversations,
    todos: s.todos,
    audit: s.audit,
    node: s.node,
    now: () => s.clock.now(),
    toolRetrieval: s.toolRetrieval,
    // The key is read through secretValue on every call: never from the environment.
    skills: async (run) => {
      const { skills } = await s.skills.load();
      return skillsZone(skillsFor(run.agent, { skills, tools: run.tools, taskGrants: run.layers.task }).skills);
    },
    memory: (run, task) => runMemoryZone(run, { dataDir: s.dataDir, task, memory: s.memory, markTainted: () => s.memoryTrust.mark(run.id) }),
    subAgents: {
      tools: async (run) => subAgentTools(run.agent, { agents: agentList(s), taskGrants: run.layers.task }),
      spawn: (run, spawn) => s.hooks.spawnSubAgent(run, spawn),
      ended: (childRunId) => endedSubAgent(s.records, childRunId),
    },
    provider:
      modelProvider ??
      ((agent) => createProvider(agent.model, { secretValue: (name) => secretValue(s, name), ...(llm.proxyUrl === undefined ? {} : { proxyUrl: llm.proxyUrl }), retry })),
  }));
}
