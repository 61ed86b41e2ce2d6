/** Building a Run object over a runtime's services, and what its events and its end set off. */
import type { AgentManifest } from "../agents/index.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { agentMounts, parseTaskGrants } from "../runs/agent-setup.js";
import { Run, type RunServices } from "../runs/run.js";
import { observeRun } from "../telemetry/run-spans.js";
import type { ApprovalNeeded } from "../runs/types.js";
import { agentList, agentNamed, refreshAgents } from "./agents.js";
import { agentToolsOf } from "./plugins.js";
import { secretValue } from "./secrets.js";
import type { ParentLayer, RuntimeState } from "./state.js";

export interface BuildInput {
  id: string;
  traceId: string;
  taskId: string;
  parentRunId: string | null;
  agent: AgentManifest;
  taskGrants: ReturnType<typeof parseTaskGrants> | undefined;
  parents: ParentLayer[];
  status?: Run["status"];
  pending?: Run["pending"];
  lastEventSeq?: number;
}

export function buildRun(s: RuntimeState, input: BuildInput): Run {
  const { mounts, allowSensitive } = agentMounts(input.agent);
  const services: RunServices = {
    node: s.node,
    sandbox: s.sandbox,
    plugins: s.plugins,
    audit: s.audit,
    approvals: s.approvals,
    records: s.records,
    now: () => s.clock.now(),
    secretValue: (name) => secretValue(s, name),
    shellSandbox: s.shellSandbox,
    mountGuard: s.mountGuard,
    store: s.store,
    backends: s.backends,
    events: s.events,
    scheduler: () => s.scheduler,
    agents: async () => {
      await refreshAgents(s);
      return agentList(s);
    },
    memory: s.memory,
    memoryTrust: s.memoryTrust,
    onEnded: (runId) => afterEnd(s, runId, input.parentRunId),
    mcp: s.mcpClient,
    refuseTransformedSecrets: s.refuseTransformedSecrets,
  };
  return new Run(
    {
      id: input.id,
      traceId: input.traceId,
      taskId: input.taskId,
      parentRunId: input.parentRunId,
      ancestorRunIds: (input.parents ?? []).map((p) => p.runId),
      agent: input.agent,
      tools: agentToolsOf(s, input.agent),
      layers: { agent: { name: input.agent.name, grants: input.agent.grants }, task: input.taskGrants, parents: input.parents },
      mounts,
      allowSensitive,
      status: input.status,
      pending: input.pending,
      lastEventSeq: input.lastEventSeq,
    },
    services,
  );
}

/**
 * What every ancestor of a sub-agent run was allowed (its task's grant, or its agent's): each
 * is one more layer the child's host calls must satisfy, whatever the child's manifest says.
 */
export async function parentLayers(s: RuntimeState, parentRunId: string | null): Promise<ParentLayer[]> {
  const parents: ParentLayer[] = [];
  let next = parentRunId;
  while (next) {
    if (parents.length >= 32) throw new ConflictError("run_chain_too_deep", `run ${parentRunId} has more than 32 ancestors`);
    const record = await s.records.get(next);
    if (!record) throw new NotFoundError(`parent run ${next} does not exist`);
    const agent = agentNamed(s, record.agent);
    const grants = record.taskGrants === null ? agent.grants : parseTaskGrants(record.taskGrants, agent, { hostGuard: s.mountGuard });
    parents.push({ name: agent.name, grants, runId: record.id });
    next = record.parentRunId;
  }
  return parents;
}

/**
 * What a run's end sets off on this node: its unfinished sub-agent runs are cancelled (a run
 * that ends, for any reason, leaves no child behind), and a parent waiting for it continues
 * with its outcome. Another node's waiting parent is continued by that node's driver tick.
 */
function afterEnd(s: RuntimeState, runId: string, parentRunId: string | null): void {
  if (s.closed) return;
  const work = (async () => {
    await s.hooks.cancelSubAgentRuns(runId);
    // Only a sub-agent run has a parent that may wait for it: a root run asks nothing more.
    if (parentRunId === null) return;
    const parent = await s.records.waitingFor(runId);
    if (parent !== undefined && !s.closed) await s.driver.continue(parent);
  })()
    .catch((error: unknown) => s.onProgress?.(`run ${runId}: after its end: ${(error as Error).message}`))
    .finally(() => s.afterEnds.delete(work));
  s.afterEnds.add(work);
}

async function relayApproval(s: RuntimeState, childRunId: string, approval: ApprovalNeeded): Promise<void> {
  try {
    const parentId = await s.records.waitingFor(childRunId);
    if (parentId !== undefined) s.runs.get(parentId)?.relaySubAgentApproval(approval, childRunId);
  } catch (error) {
    s.onProgress?.(`run ${childRunId}: showing its approval to its parent: ${(error as Error).message}`);
  }
}

export function trackRun(s: RuntimeState, run: Run, how: "started" | "resumed"): Run {
  s.runs.set(run.id, run);
  run.onEvent((event) => {
    if (event.type === "run-ended") s.runs.delete(run.id);
    // A parent waiting for this run, live here, shows a new approval it asks for (and so on up).
    if (event.type === "approval-required") void relayApproval(s, run.id, event.approval);
  });
  observeRun(run);
  s.onRun?.(run, how);
  return run;
}
