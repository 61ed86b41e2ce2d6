/** Starting runs: of an agent with a task grant, of explicit ToolCalls, or driven by the model. */
import { randomBytes, randomUUID } from "node:crypto";
import { ConflictError, InvalidInputError } from "../errors.js";
import { parseTaskGrants } from "../runs/agent-setup.js";
import { resolveToolName } from "../runs/agent-tools.js";
import { failureOf } from "../runs/errors.js";
import { journalMark } from "../runs/journal.js";
import type { RunRecords } from "../runs/records.js";
import type { Run } from "../runs/run.js";
import { initialLoopState } from "../runs/loop/index.js";
import type { StartRunOptions, SubmitRunOptions } from "../options.js";
import { StoreError, type Statement } from "../store/index.js";
import { callerTraceId } from "../telemetry/caller-trace.js";
import { agentNamed, refreshAgents } from "./agents.js";
import { buildRun, parentLayers, trackRun } from "./build.js";
import { abandonRun } from "./leases.js";
import { agentToolsOf, refreshPlugins } from "./plugins.js";
import type { ParentLayer, RuntimeState } from "./state.js";

/**
 * Starts a run of `agent`. `grants` is the task's narrower request (validated to lie within
 * the agent's grant); its instances are created on first use and bound to exactly these.
 */
export async function startRun(s: RuntimeState, options: StartRunOptions): Promise<Run> {
  if (s.closed) throw new ConflictError("runtime_closed", "the runtime is closed");
  await refreshPlugins(s);
  await refreshAgents(s);
  return startRefreshed(s, options);
}

/**
 * `startRun` for a caller that has just refreshed the plugins and agents (once per run, not twice).
 * `firstMark`: the caller drives the plan at once, so the journal mark of its first ToolCall is
 * committed with the run's row (one transaction, not two; see FreshPlan).
 */
async function startRefreshed(s: RuntimeState, options: StartRunOptions, internal: { firstMark?: boolean } = {}): Promise<Run> {
  if (s.closed) throw new ConflictError("runtime_closed", "the runtime is closed");
  const agent = agentNamed(s, options.agent);
  const taskGrants = options.grants === undefined ? undefined : parseTaskGrants(options.grants, agent, { hostGuard: s.mountGuard });
  const id = options.runId ?? `run_${randomUUID()}`;
  const traceId = options.traceId ?? callerTraceId() ?? randomBytes(16).toString("hex");
  const taskId = `task_${randomUUID()}`;
  const createdAt = s.clock.now();
  const marked = internal.firstMark === true && options.plan !== undefined && options.plan.length > 0;
  const withMark = marked ? [journalMark(id, { position: "plan:0", since: createdAt, node: s.node })] : [];
  await createRecord(s, options.runId, {
    id,
    traceId,
    taskId,
    parentRunId: options.parentRunId ?? null,
    agent: agent.name,
    plugins: agent.plugins.map((p) => p.name),
    task: options.task ?? null,
    taskGrants: taskGrants ?? null,
    createdAt,
    ownerToken: options.ownerToken ?? null,
    plan: options.plan ?? null,
    conversationId: options.conversationId ?? null,
    node: s.node,
    leaseUntil: createdAt + s.leaseMs,
  }, withMark);
  let parents: ParentLayer[];
  try {
    parents = await parentLayers(s, options.parentRunId ?? null);
  } catch (error) {
    // Recorded but never built: it ends here rather than stay active with nothing driving it.
    await abandonRun(s, id, { reason: "failed", ...failureOf(error) }).catch(() => undefined);
    throw error;
  }
  return trackRun(s, buildRun(s, { id, traceId, taskId, parentRunId: options.parentRunId ?? null, agent, taskGrants, parents }), "started");
}

/** Records a new run; a caller-chosen id already taken is `run_exists`, not a store error. */
async function createRecord(s: RuntimeState, chosenId: string | undefined, record: Parameters<RunRecords["create"]>[0], also: readonly Statement[]): Promise<void> {
  try {
    await s.records.create(record, { with: also });
  } catch (error) {
    if (chosenId !== undefined && error instanceof StoreError && error.code === "store_constraint" && (await s.records.get(chosenId)) !== undefined) {
      throw new ConflictError("run_exists", `run ${chosenId}: already started; it is not started twice`);
    }
    throw error;
  }
}

/**
 * Starts a run of explicit ToolCalls (`toolCalls`, run in order) and drives it: `settled`
 * resolves when the run ends or waits for a person. A waiting run continues, on this node or
 * another sharing the store, once its approval is decided.
 */
export async function submitRun(s: RuntimeState, options: SubmitRunOptions): Promise<{ run: Run; settled: Promise<void>; conversationId?: string }> {
  if (options.toolCalls === undefined || options.toolCalls.length === 0) return submitModelRun(s, options);
  if (options.conversationId !== undefined) {
    throw new InvalidInputError("conversation_id: only a run the model drives (task text, no tool_calls) continues a conversation", { field: "conversation_id" });
  }
  await refreshPlugins(s);
  await refreshAgents(s);
  const agent = agentNamed(s, options.agent);
  const tools = agentToolsOf(s, agent);
  const plan = options.toolCalls.map((call, i) => ({ name: resolveToolName(tools, call.name, `tool_calls[${i}].name`), input: call.input ?? {}, ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }) }));
  const run = await startRefreshed(s, { ...options, plan }, { firstMark: true });
  return { run, settled: s.driver.drive(run, { fresh: { plan, task: options.task ?? null, marked: true } }) };
}

// --- model-driven runs (issue 8): the loop in runs/loop drives a run with task text and no plan.

/**
 * Starts a run the agent's model drives: the task is the first user message (after the
 * conversation's history when `conversationId` continues one; else a new conversation is
 * started, so the person can continue it). `settled` resolves when the run ends or waits.
 */
async function submitModelRun(s: RuntimeState, options: SubmitRunOptions): Promise<{ run: Run; settled: Promise<void>; conversationId: string }> {
  if (options.task === undefined || options.task.trim() === "") {
    throw new InvalidInputError("task: expected the task text for the model (or tool_calls for a run of explicit calls)", { field: "task" });
  }
  await refreshPlugins(s);
  await refreshAgents(s);
  const agent = agentNamed(s, options.agent);
  // Checked before a conversation is started for it (startRefreshed checks it again).
  if (options.grants !== undefined) parseTaskGrants(options.grants, agent, { hostGuard: s.mountGuard });
  if (options.runId !== undefined && (await s.records.get(options.runId)) !== undefined) {
    throw new ConflictError("run_exists", `run ${options.runId}: already started; it is not started twice`);
  }
  const conversation = options.conversationId === undefined
    ? await s.conversations.create(agent.name, { ownerToken: options.ownerToken ?? null })
    : await s.conversations.forRun(options.conversationId, { agent: agent.name, ownerToken: options.ownerToken ?? null });
  const { toolCalls: _none, ...start } = options;
  const run = await startRefreshed(s, { ...start, conversationId: conversation.id });
  try {
    await s.loopStates.put(run.id, initialLoopState(options.task, conversation.id));
  } catch (error) {
    // Without its state no loop would ever drive it: it ends failed, saying why.
    await run.fail(failureOf(error)).catch(() => undefined);
    throw error;
  }
  // Its instances are readied while the model answers the first Step.
  void run.prepare();
  return { run, settled: s.driver.drive(run), conversationId: conversation.id };
}
