/**
 * A runtime's hold on runs in a store other runtimes may share: leases taken, renewed and
 * taken over, runs rebuilt here, cancelled, abandoned; and closing, which lets them all go.
 */
import { ConflictError, NotFoundError } from "../errors.js";
import { closeIdleRoots } from "../../host-proxies/fs/index.js";
import { parseTaskGrants } from "../runs/agent-setup.js";
import { parseNodeId, processAlive, safeHostname } from "../runs/node-id.js";
import type { RunRecord } from "../runs/records.js";
import type { Run } from "../runs/run.js";
import { knownAgent, refreshAgents } from "./agents.js";
import { buildRun, parentLayers, trackRun } from "./build.js";
import { refreshPlugins } from "./plugins.js";
import type { RuntimeState } from "./state.js";

/** Takes or renews this node's lease on run `id` (see RunDriverOptions.claim). */
export async function claimRun(s: RuntimeState, id: string, holder: string | null): Promise<boolean> {
  const now = s.clock.now();
  return (await s.records.claim(id, s.node, { now, until: now + s.leaseMs })) || takeOverFromDead(s, id, holder, now);
}

/**
 * A lease held by a process of this machine that no longer exists (killed, crashed) is taken
 * over at once rather than after it runs out: nothing can still be driving the run.
 */
async function takeOverFromDead(s: RuntimeState, id: string, holder: string | null, now: number): Promise<boolean> {
  const parsed = holder ? parseNodeId(holder) : undefined;
  if (!parsed || parsed.host !== safeHostname() || processAlive(parsed.pid)) return false;
  return s.records.takeOver(id, { from: holder!, to: s.node, until: now + s.leaseMs });
}

/**
 * Ends run `id` from its record alone, when no Run object can (see RunDriverOptions.abandon):
 * taken first (a live holder keeps it), its approvals withdrawn, a `finish` Step and its end
 * added to its events, its end recorded with the reason.
 */
export async function abandonRun(s: RuntimeState, id: string, end: { reason: "failed" | "cancelled"; code: string; message: string }): Promise<void> {
  const record = await s.records.get(id);
  if (!record || record.status === "ended" || !(await claimRun(s, id, record.node))) return;
  const now = s.clock.now();
  await s.approvals.withdrawForRun(id, `run ${id} ended (${end.reason}) before the approval was used`);
  const seq = await s.events.lastSeq(id);
  s.events.append(id, seq + 1, { type: "step", stepId: "finish", action: "finish", usage: null, reason: end.code, at: now });
  s.events.append(id, seq + 2, { type: "run-ended", reason: end.reason, at: now });
  // The events are a view of the run: its end is recorded even if they could not be written.
  await s.events.flush().catch(() => undefined);
  await s.records.end(id, record.report, now, end.reason, `the run ${end.reason === "cancelled" ? "was cancelled" : "failed"}: ${end.code}: ${end.message}`);
}

/** A live run of this process, or one rebuilt from the store (after a restart, or another node's). */
export async function resumeRun(s: RuntimeState, id: string): Promise<Run> {
  const live = s.runs.get(id);
  if (live) return live;
  await refreshPlugins(s);
  await refreshAgents(s);
  const record = await s.records.get(id);
  if (!record) throw new NotFoundError(`no run ${id}`);
  if (record.status === "ended") throw new ConflictError("run_ended", `run ${id} has ended`);
  const now = s.clock.now();
  if (!(await claimRun(s, id, record.node))) {
    throw new ConflictError(
      "run_leased",
      `run ${id} is driven by another runtime (${record.node}) until ${new Date(record.leaseUntil ?? now).toISOString()}; it continues there once its approval is decided`,
    );
  }
  const agent = knownAgent(s, record.agent, id);
  const taskGrants = record.taskGrants === null ? undefined : parseTaskGrants(record.taskGrants, agent, { hostGuard: s.mountGuard });
  const parents = await parentLayers(s, record.parentRunId);
  const lastEventSeq = await s.events.lastSeq(id);
  const run = buildRun(s, { id, traceId: record.traceId, taskId: record.taskId, parentRunId: record.parentRunId, agent, taskGrants, parents, status: record.status, pending: record.pending, lastEventSeq });
  return trackRun(s, run, "resumed");
}

/** Whether run `id` is one the driver carries on (a plan of tool calls, or the model loop). */
export async function isDriven(s: RuntimeState, id: string): Promise<boolean> {
  const record = await s.records.get(id);
  return record !== undefined && (record.plan !== null || (s.loop !== undefined && (await s.loop.owns(id))));
}

/** Cancels run `id`: now if this node drives it, else at its driver's next tick. */
export async function cancelRun(s: RuntimeState, id: string): Promise<RunRecord> {
  const record = await s.records.get(id);
  if (!record) throw new NotFoundError(`no run ${id}`);
  if (record.status === "ended") throw new ConflictError("run_ended", `run ${id} has already ended (${record.endReason ?? "completed"})`);
  await s.driver.cancel(id);
  // At once, whichever node drives it: a person can no longer approve what the run asked for.
  await s.approvals.withdrawForRun(id, `run ${id} was cancelled`);
  if (!s.runs.has(id)) await cancelUndriven(s, id);
  // Cancelling a parent cancels its sub-agents, down the chain.
  await s.hooks.cancelSubAgentRuns(id);
  return (await s.records.get(id))!;
}

/**
 * A run no node holds (it waits for a person, and the node that drove it closed) is ended
 * here; one another live node holds ends at that node's next tick.
 */
async function cancelUndriven(s: RuntimeState, id: string): Promise<void> {
  const record = await s.records.get(id);
  // Held by this node yet not live here: it is ending now.
  if (!record || record.status === "ended" || record.node === s.node) return;
  try {
    await (await resumeRun(s, id)).cancel();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "run_leased" && code !== "run_ended") throw error;
  }
}

export async function closeRuntime(s: RuntimeState): Promise<void> {
  if (s.closed) return;
  s.closed = true;
  // Model calls in flight are aborted, so closing does not wait for a model to answer.
  s.loop?.close();
  await s.scheduler?.stop();
  await Promise.allSettled(s.afterEnds);
  await s.driver.stop();
  // Live runs are left as they are in the store, let go of so that another process (or a
  // restart) may take them over at once.
  for (const run of s.runs.values()) {
    await run.flushEvents();
    if (!run.ended) await s.records.release(run.id, s.node).catch(() => undefined);
  }
  s.runs.clear();
  await s.events.flush().catch(() => undefined);
  await s.mcpClient?.close();
  await s.sandbox.close();
  // Mount roots kept open for later runs (host-proxies/fs/shared-roots.ts); those in use by
  // another runtime of this process stay.
  await closeIdleRoots();
  await s.audit.close();
  await s.store.close();
}
