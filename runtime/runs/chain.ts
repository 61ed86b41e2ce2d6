/**
 * A run's chain of parents, read from its records: what an approver is shown (which agent asked,
 * through whom) and what bounds a sub-agent's depth. Apart from sub-agents.ts so that reading a
 * chain loads nothing of starting runs.
 */
import { ConflictError, NotFoundError } from "../errors.js";
import type { RunRecord, RunRecords } from "./records.js";

/** The most runs a chain holds below its root. */
export const MAX_CHAIN = 32;

/** Run `runId` and its ancestors, nearest first (the run itself at index 0). */
export async function ancestry(records: RunRecords, runId: string): Promise<RunRecord[]> {
  const chain: RunRecord[] = [];
  let next: string | null = runId;
  while (next !== null) {
    if (chain.length > MAX_CHAIN) throw new ConflictError("run_chain_too_deep", `run ${runId} has more than ${MAX_CHAIN} ancestors`);
    const record: RunRecord | undefined = await records.get(next);
    if (!record) throw new NotFoundError(`run ${next} does not exist`);
    chain.push(record);
    next = record.parentRunId;
  }
  return chain;
}

/** The chain of run `runId`, root first, as an approver sees it: which agent asked, through whom. */
export async function runChain(records: RunRecords, runId: string): Promise<Array<{ runId: string; agent: string }>> {
  return (await ancestry(records, runId)).reverse().map((r) => ({ runId: r.id, agent: r.agent }));
}

