/**
 * Sub-agents: a run starts another agent's run as a tool. Delegation only narrows power: the
 * spawn itself must be allowed by every layer the parent run answers to (its agent, its task,
 * every ancestor), the child's requested grant must lie within each of them, and at run time
 * every host call of the child is checked against each ancestor's grant as well as its own
 * (the runtime adds those layers: `Runtime.startRun` with `parentRunId`). The child shares the
 * parent's trace, so its calls, approvals and audit records read as one story.
 */
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { randomUUID } from "node:crypto";
import type { Denial } from "../../host-proxies/types.js";
import type { AgentManifest } from "../agents/index.js";
import type { AuditSubject } from "../audit/index.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { capabilityMatches, grantCovers, type CapabilityGrant } from "../policy/catalogue/index.js";
import type { AuditLog } from "../audit/index.js";
import type { Store } from "../store/index.js";
import { parseTaskGrants } from "./agent-setup.js";
import { fenceRefused } from "./fence.js";
import type { PlannedCall, RunRecord, RunRecords } from "./records.js";
import type { Run } from "./run.js";
import type { RunStarter } from "./run-starter.js";
import { SUB_AGENT_TOOL_PREFIX, type SpawnResult } from "./sub-agent-tools.js";
import { ancestry, MAX_CHAIN } from "./chain.js";

export { ancestry, runChain } from "./chain.js";

export { SUB_AGENT_TOOL_PREFIX, spawnResultContent, subAgentOfTool, subAgentProblems, subAgentTools } from "./sub-agent-tools.js";
export type { SpawnResult, SubAgentTool } from "./sub-agent-tools.js";

/**
 * What a sub-agent needs of the runtime that starts it: the Runtime, seen through what it uses
 * (the runtime imports this file; this file does not import the runtime).
 */
export interface SubAgentRuntime extends RunStarter {
  readonly records: RunRecords;
  readonly audit: AuditLog;
  cancelRun(id: string): Promise<unknown>;
}

/** The runtime's own hard cap on a chain of runs (see `Runtime`'s parent layers). */

export interface SpawnSubAgentOptions {
  /** The sub-agent to start; the parent agent must list it in `sub_agents`. */
  agent: string;
  /** The task text (a model-driven child when there are no `toolCalls`). */
  task?: string;
  /** The child's task grant: within the child's manifest and within every layer of the parent. */
  grants?: unknown;
  /** Explicit ToolCalls the child carries out in order. */
  toolCalls?: readonly PlannedCall[];
  /** The parent's step the spawn belongs to (audit). */
  stepId?: string;
  ownerToken?: string;
}

interface Layer {
  who: string;
  absent: string;
  grants: CapabilityGrant;
}

/**
 * Starts sub-agent `options.agent` as a child of `parent` and drives it until it ends or waits
 * for a person. Refused (a structured denial, audited in the parent's run) when the parent
 * agent does not list it, when any layer of the parent lacks `agent.spawn` for it, when the
 * depth limit of the parent or an ancestor would be passed, or when the requested grant is wider
 * than the parent's. Caller mistakes (unknown agent, malformed grant) throw.
 */
export async function spawnSubAgent(runtime: SubAgentRuntime, parent: Run, options: SpawnSubAgentOptions): Promise<SpawnResult> {
  if (parent.ended) throw new ConflictError("run_ended", `run ${parent.id} has ended; a sub-agent needs a live parent`);
  // Asked of the store: a parent cancelled on another node starts no child.
  await parent.stops.stopIfAsked();
  await runtime.refreshAgents();
  const agents = runtime.agents();
  const child = agents.find((a) => a.name === options.agent);
  // Never the node's agents: the caller (a model, a client) may not learn their names.
  if (!child) throw new NotFoundError(`no agent ${options.agent}: a sub-agent must be an agent the parent lists in sub_agents`);
  const chain = await ancestry(runtime.records, parent.id);
  const layers = parentLayers(parent, chain, { agents, hostGuard: runtime.mountGuard });
  const requested = options.grants === undefined ? undefined : parseTaskGrants(options.grants, child, { hostGuard: runtime.mountGuard });
  const subject = spawnSubject(parent, { parentRecord: chain[0]!, layers, child: child.name, options, requested });
  const denial = decideSpawn(parent.agent, { child: child.name, chain, layers, agents, requested });
  if (denial) {
    await runtime.audit.appendDenial({ ...subject, denial });
    return { status: "denied", denial };
  }
  // Fail closed: no intent on record, no child. Fenced like a host call's effect: a parent
  // another node took over (or one cancelled) since the check above starts no child here.
  let intent;
  try {
    intent = await runtime.audit.appendIntent(subject, { guard: parent.stops.fence() });
  } catch (error) {
    if (!fenceRefused(error)) throw error;
    await parent.stops.stopIfAsked();
    throw new ConflictError("run_cancelled", `run ${parent.id} may start no sub-agent here: it was cancelled, has ended or is driven by another node`);
  }
  try {
    const result = await driveChild(runtime, parent, { child: child.name, options, requested, owner: options.ownerToken ?? chain[0]!.ownerToken });
    await runtime.audit.appendOutcome(intent, { status: result.endReason === "failed" ? "error" : "ok" });
    return result;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    await runtime.audit.appendOutcome(intent, { status: "error", error: { code: e.code ?? "spawn_failed", message: e.message ?? String(error) } });
    throw error;
  }
}

/** Starts the child on the parent's trace and drives it until it ends or waits for a person. */
async function driveChild(
  runtime: SubAgentRuntime,
  parent: Run,
  input: { child: string; options: SpawnSubAgentOptions; requested: CapabilityGrant | undefined; owner: string | null },
): Promise<Exclude<SpawnResult, { status: "denied" }>> {
  const { options } = input;
  const { run, settled } = await runtime.submitRun({
    agent: input.child,
    ...(options.task === undefined ? {} : { task: options.task }),
    ...(input.requested === undefined ? {} : { grants: input.requested }),
    ...(options.toolCalls === undefined ? {} : { toolCalls: options.toolCalls }),
    // The child belongs to whoever owns the parent: the client that sees one sees both.
    ...(input.owner === null ? {} : { ownerToken: input.owner }),
    traceId: parent.traceId,
    parentRunId: parent.id,
  });
  await settled;
  return spawnResultOf((await runtime.records.get(run.id))!);
}

/** Where a child run stands, as its parent is told (see `spawnResultContent`). */
export function spawnResultOf(record: RunRecord): Exclude<SpawnResult, { status: "denied" }> {
  return {
    status: record.status,
    runId: record.id,
    traceId: record.traceId,
    endReason: record.endReason,
    outcomes: record.outcomes,
    result: record.result,
    approvalId: record.pending?.approvalId ?? null,
  };
}

/** Sub-agent run `runId`'s outcome once it has ended; `undefined` while it goes on or waits. */
export async function endedSubAgent(records: RunRecords, runId: string): Promise<SpawnResult | undefined> {
  const record = await records.get(runId);
  if (!record) throw new NotFoundError(`sub-agent run ${runId} does not exist`);
  return record.status === "ended" ? spawnResultOf(record) : undefined;
}

/** The spawn as the parent run's audit records it: a ToolCall of `subagent_<child>` needing `agent.spawn`. */
function spawnSubject(
  parent: Run,
  input: { parentRecord: RunRecord; layers: readonly Layer[]; child: string; options: SpawnSubAgentOptions; requested: CapabilityGrant | undefined },
): AuditSubject {
  const toolName = `${SUB_AGENT_TOOL_PREFIX}${input.child}`;
  const effective = input.layers.find((l) => l.absent === "narrowed-by-task") ?? input.layers[0]!;
  return {
    kind: "tool_call",
    traceId: parent.traceId,
    runId: parent.id,
    taskId: parent.taskId,
    parentRunId: input.parentRecord.parentRunId,
    agent: parent.agent.name,
    stepId: input.options.stepId ?? null,
    tool: toolName,
    toolCall: { id: `spawn_${randomUUID()}`, name: toolName },
    args: { agent: input.child, task: input.options.task ?? null, grants: (input.requested ?? null) as never, tool_calls: input.options.toolCalls?.length ?? 0 },
    requestedCapabilities: ["agent.spawn"],
    grantedCapabilities: Object.keys(effective.grants),
    approvalRequired: false,
    approvalResult: null,
  };
}

/** Why the spawn is refused, or `undefined`. Pure: every input is already read. */
function decideSpawn(
  parentAgent: AgentManifest,
  input: { child: string; chain: readonly RunRecord[]; layers: readonly Layer[]; agents: readonly AgentManifest[]; requested: CapabilityGrant | undefined },
): Denial | undefined {
  const deny = (reason: string, message: string): Denial => ({ capability: "agent.spawn", reason, message });
  if (!parentAgent.sub_agents.includes(input.child)) {
    return deny("not-a-sub-agent", `agent ${parentAgent.name} does not list ${input.child} in sub_agents`);
  }
  for (const layer of input.layers) {
    const resource = layer.grants["agent.spawn"];
    if (resource === undefined) return deny(layer.absent, `${layer.who} is not granted agent.spawn`);
    const decision = capabilityMatches("agent.spawn", resource, { agent: input.child });
    if (!decision.allow) return deny(decision.denial.reason, `${layer.who}: ${decision.denial.message}`);
  }
  // The child's depth below the run at chain[i] is i + 1; each of those agents' limits holds.
  if (input.chain.length >= MAX_CHAIN) return deny("max-depth", `the chain of runs would pass ${MAX_CHAIN}`);
  for (const [i, record] of input.chain.entries()) {
    const limit = input.agents.find((a) => a.name === record.agent)?.limits.max_depth ?? 0;
    if (i + 1 > limit) {
      return deny("max-depth", `${input.child} would run ${i + 1} level${i === 0 ? "" : "s"} below a run of agent ${record.agent}, whose limits.max_depth is ${limit}`);
    }
  }
  if (input.requested !== undefined) {
    for (const layer of input.layers) {
      const coverage = grantCovers(layer.grants, input.requested);
      if (!coverage.covered) return deny("wider-than-parent", `the requested grants.${coverage.path} is wider than what ${layer.who} allows: ${coverage.reason}`);
    }
  }
  return undefined;
}

/**
 * Every grant the parent run answers to, in the policy engine's order and words: its agent,
 * its task (when narrowed), then each ancestor's effective grant (task, else agent).
 */
function parentLayers(parent: Run, chain: readonly RunRecord[], options: { agents: readonly AgentManifest[]; hostGuard: MountHostGuard }): Layer[] {
  const { agents, hostGuard } = options;
  const own = chain[0]!;
  const layers: Layer[] = [{ who: `agent ${parent.agent.name}`, absent: "not-granted", grants: parent.agent.grants }];
  if (own.taskGrants !== null) layers.push({ who: "the task", absent: "narrowed-by-task", grants: parseTaskGrants(own.taskGrants, parent.agent, { hostGuard }) });
  for (const record of chain.slice(1)) {
    const agent = agents.find((a) => a.name === record.agent);
    if (!agent) throw new NotFoundError(`agent ${record.agent} of ancestor run ${record.id} no longer exists`);
    const grants = record.taskGrants === null ? agent.grants : parseTaskGrants(record.taskGrants, agent, { hostGuard });
    layers.push({ who: `parent agent ${agent.name}`, absent: "not-granted-to-parent", grants });
  }
  return layers;
}

/** The unfinished runs below run `?`, deepest first (see `unfinishedDescendants`). */
export const DESCENDANTS_SQL = `WITH RECURSIVE below(id, depth) AS (
            SELECT id, 1 FROM runs WHERE parent_run_id = ?
            UNION SELECT runs.id, below.depth + 1 FROM runs JOIN below ON runs.parent_run_id = below.id WHERE below.depth < ${MAX_CHAIN}
          )
          SELECT runs.id FROM below CROSS JOIN runs ON runs.id = below.id WHERE runs.status != 'ended' ORDER BY below.depth DESC, runs.created_at`;

/**
 * Ids of the runs not yet ended whose parent chain leads to run `runId`. Asked at every run's
 * end, so it must cost nothing when there are none: the runs below are found through the
 * `runs_parent` index, and `CROSS JOIN` keeps SQLite from scanning `runs` to join them.
 */
export async function unfinishedDescendants(store: Store, runId: string): Promise<string[]> {
  const result = await store.execute({ sql: DESCENDANTS_SQL, args: [runId] });
  return result.rows.map((row) => String(row.id));
}

/**
 * Cancels every unfinished run below run `runId` (deepest first): cancelling a parent cancels
 * its sub-agents, on this node at once, on another by its driver's next tick.
 */
export async function cancelSubAgentRuns(runtime: SubAgentRuntime, runId: string): Promise<string[]> {
  const ids = await unfinishedDescendants(runtime.store, runId);
  for (const id of ids) {
    await runtime.cancelRun(id).catch((error: unknown) => {
      // Ended meanwhile: nothing left to cancel.
      if ((error as { code?: string }).code !== "run_ended") throw error;
    });
  }
  return ids;
}

