/** A runtime's agents: files, stored ones and those defined in code, and finding one by name. */
import type { AgentManifest } from "../agents/index.js";
import { AgentInvalidError } from "../agents/issues.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.js";
import { parseInlineAgent } from "../runs/agent-setup.js";
import type { RuntimeState } from "./state.js";

export function agentList(s: RuntimeState): AgentManifest[] {
  return [...new Map([...s.storedAgents, ...s.agents]).values()];
}

/**
 * Re-reads the agent files and the agents stored through the API that changed since the last
 * look (an edited file, another process's put or delete); unchanged ones are not parsed again.
 * A stored agent never shadows a file or code agent of the same name. One that does not pass
 * is reported once and left out: runs of it are refused with its problems (see `agentNamed`).
 */
export function refreshAgents(s: RuntimeState): Promise<void> {
  return s.agentsLook.look();
}

/** One look at the agents (what `refreshAgents` shares among the callers of a moment). */
export async function lookAtAgents(s: RuntimeState): Promise<void> {
  const fresh = await s.catalogue.refresh(s.codeAgents);
  for (const p of fresh) s.onProgress?.(`agent not loaded: ${p.file}: ${p.path}: ${p.message}`);
  s.agents = new Map([...s.catalogue.files, ...s.codeAgents]);
  s.storedAgents = new Map([...s.catalogue.stored].filter(([name]) => !s.agents.has(name)));
  // Pins accepted on another node (or by another process) are offered from the next run on.
  await s.mcpClient?.refresh();
}

/** Adds (or replaces) an agent given as an object, validated like a manifest file. */
export async function defineAgent(s: RuntimeState, manifest: unknown): Promise<AgentManifest> {
  const parsed = await parseInlineAgent(manifest, { dataDir: s.dataDir, hostGuard: s.mountGuard });
  s.codeAgents.set(parsed.name, parsed);
  s.agents.set(parsed.name, parsed);
  s.storedAgents.delete(parsed.name);
  return parsed;
}

/** The agent of a run to continue here; `agent_unknown` when this node does not know it (removed, or defined on another node only). */
export function knownAgent(s: RuntimeState, name: string, runId: string): AgentManifest {
  const agent = s.agents.get(name) ?? s.storedAgents.get(name);
  const invalid = s.catalogue.lookup(name);
  if (!agent && invalid !== undefined && "issues" in invalid) throw new AgentInvalidError(name, invalid.issues, { runId });
  if (!agent) throw new ConflictError("agent_unknown", `run ${runId}: its agent ${name} is not known to this runtime (removed, or defined on another node only); the run cannot continue`);
  return agent;
}

export function agentNamed(s: RuntimeState, name: string): AgentManifest {
  if (typeof name !== "string" || name.length === 0) throw new InvalidInputError("agent: expected an agent name", { field: "agent" });
  const agent = s.agents.get(name) ?? s.storedAgents.get(name);
  if (agent) return agent;
  const invalid = s.catalogue.lookup(name);
  if (invalid !== undefined && "issues" in invalid) throw new AgentInvalidError(name, invalid.issues);
  // Never the list of agents: the caller may be a client allowed to see only some of them.
  throw new NotFoundError(`no agent ${name}: check the name (GET /v1/agents lists the agents you may see)`);
}
