import { ConflictError, InvalidInputError, NotFoundError } from "../errors.js";
import { ApprovalStore } from "../policy/approvals/index.js";
import { RunRecords, runMigrations } from "../runs/records.js";
import type { LeastPrivilegeReport } from "../runs/report.js";
import type { Run } from "../runs/run.js";
import type { ToolCallOutcome } from "../runs/types.js";
import type { Runtime } from "../runtime.js";
import { applyMigrations, systemClock } from "../store/index.js";
import { inert, jsonOut, jsonText } from "./render.js";
import { parseCommandArgs } from "./args.js";
import { reportLines } from "./runs.js";
import { openExistingStore, openRuntime, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const resumeHelp = `clawhive resume — continue a run that waited for an approval

  clawhive resume RUN [--json]

  Replays the ToolCall the run paused on, now that its approval is decided: approved, the
  call runs; denied or expired, it fails. Unless the call pauses again (for another effect),
  the run then ends and its least-privilege report is printed (to stderr). A run started with
  several tool calls ('clawhive run … --call …', POST /v1/runs) goes on with the rest of them.

  --json            print the outcome and the report as JSON
  --agents DIR      where agent manifests live (default the project's capabilities/;
                    env CLAWHIVE_AGENTS_DIR): the run's agent must be there
${STORE_FLAGS_HELP}

  Exit codes: 0 output; 1 the tool returned an error (also a denied or expired approval), or
  the run is unknown, ended or not waiting; 3 still waiting for approval; 2 bad usage.`;

export async function resumeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, agents: { type: "string" }, json: { type: "boolean" } });
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive resume RUN");
  // Loading the plugins takes a second or two: answer what the store alone can answer first.
  const ready = await checkResumable(values, id);
  if (ready !== "resumable") return ready;
  const runtime = await openRuntime(values);
  try {
    let outcome: ToolCallOutcome | undefined;
    let run: Run;
    try {
      // A run submitted with a plan of tool calls, or driven by the model, goes on from where it waited.
      if (await runtime.isDriven(id)) return await continueDriven(runtime, id, values.json === true);
      run = await runtime.resumeRun(id);
      outcome = await run.resume();
    } catch (error) {
      // The run's agent is not in this agents dir, or another process ended the run since the check.
      if (error instanceof NotFoundError && error.message.startsWith("no agent ")) return refuse(`run ${id}: ${error.message}; pass the --agents DIR the run was started with`);
      if (error instanceof NotFoundError || (error instanceof ConflictError && error.code === "run_ended")) return refuse(error.message);
      throw error;
    }
    if (outcome === undefined) return refuse(`run ${id} is not waiting for an approval (another process may have resumed it); nothing to resume`);
    const report = outcome.status === "approval_required" ? undefined : await run.end();
    print(id, outcome, report, values.json === true);
    return outcome.status === "ok" ? 0 : outcome.status === "error" ? 1 : 3;
  } finally {
    await runtime.close();
  }
}

/** Continues a driven run to its end or its next wait; exit code as for a single call. */
async function continueDriven(runtime: Runtime, id: string, json: boolean): Promise<number> {
  if (!(await runtime.continueRun(id))) return refuse(`run ${id} is driven by another runtime; it continues there (follow it with 'clawhive runs watch ${id}')`);
  // A parent that waited for this run continues here once it ends: let it reach its end or next wait.
  await runtime.idle();
  const record = (await runtime.records.get(id))!;
  const outcomes = record.outcomes as ToolCallOutcome[];
  if (json) console.log(jsonOut({ run: id, status: record.status, outcomes, result: record.result, ...(record.report ? { report: record.report } : {}) }));
  else {
    if (record.result !== null) console.log(inert(record.result));
    for (const outcome of outcomes) {
      if (outcome.status === "ok") console.log(typeof outcome.output === "string" ? inert(outcome.output) : jsonText(outcome.output));
      else if (outcome.status === "error") console.error(inert(`${outcome.tool}: ${outcome.error.kind}: ${outcome.error.message}`));
    }
    if (record.status === "awaiting_approval" && record.pending?.childRunId !== undefined) {
      console.error(inert(`${record.pending.tool}: waiting for sub-agent run ${record.pending.childRunId}, which waits for approval ${record.pending.approvalId}`, { newlines: false }));
    } else if (record.status === "awaiting_approval" && record.pending) {
      console.error(inert(`${record.pending.tool}: waiting for approval ${record.pending.approvalId}; decide it, then 'clawhive resume ${id}'`, { newlines: false }));
    }
    if (record.report) console.error([`run ${inert(id, { newlines: false })} ended; least-privilege report:`, ...reportLines(record.report as LeastPrivilegeReport)].join("\n"));
    const parent = record.status === "ended" && record.parentRunId !== null ? await runtime.records.get(record.parentRunId) : undefined;
    if (parent?.pending?.childRunId === id) {
      // Held by another runtime: it continues there at its next tick.
      console.error(inert(`run ${parent.id} waits for this sub-agent run; it continues where it is driven (or 'clawhive resume ${parent.id}')`, { newlines: false }));
    } else if (parent !== undefined) {
      console.error(inert(`run ${parent.id}, which started this sub-agent run, is ${parent.status === "ended" ? `ended (${parent.endReason ?? "completed"})` : parent.status}; 'clawhive runs show ${parent.id}'`, { newlines: false }));
    }
  }
  if (record.status === "awaiting_approval") return 3;
  return record.endReason === "completed" && outcomes.every((o) => o.status === "ok") ? 0 : 1;
}

/** `resumable`, or the exit code of a run that cannot be resumed now (message printed). */
async function checkResumable(values: Readonly<Record<string, unknown>>, id: string): Promise<"resumable" | number> {
  const store = await openExistingStore(values);
  try {
    await applyMigrations(store, runMigrations, { clock: systemClock });
    const record = await new RunRecords(store).get(id);
    if (!record) return refuse(`no run ${id}; 'clawhive runs list' shows the runs in this store`);
    if (record.status === "ended") {
      const at = record.endedAt === null ? "" : ` at ${new Date(record.endedAt).toISOString()}`;
      return refuse(`run ${id} has ended${at}; nothing to resume ('clawhive runs show ${id}' shows its report)`);
    }
    if (record.status !== "awaiting_approval" || !record.pending) return refuse(`run ${id} is ${record.status}, not waiting for an approval; nothing to resume`);
    const childRunId = record.pending.childRunId;
    if (childRunId !== undefined) {
      // It waits for its sub-agent run: resumable once that has ended.
      if ((await new RunRecords(store).get(childRunId))?.status === "ended") return "resumable";
      console.error(inert(`${record.pending.tool}: waiting for sub-agent run ${childRunId}, which waits for approval ${record.pending.approvalId}`, { newlines: false }));
      console.error(inert(`  decide it, then 'clawhive resume ${childRunId}'; this run continues when that one ends`, { newlines: false }));
      return 3;
    }
    const approval = await (await ApprovalStore.open(store, { clock: systemClock })).get(record.pending.approvalId);
    if (approval?.status === "pending") {
      console.error(inert(`${record.pending.tool}: still waiting for approval ${approval.id} (expires ${new Date(approval.expiresAt).toISOString()})`, { newlines: false }));
      console.error(inert(`  decide with 'clawhive approvals approve ${approval.id}' (or deny), then 'clawhive resume ${id}'`, { newlines: false }));
      return 3;
    }
    return "resumable";
  } finally {
    await store.close();
  }
}

function refuse(message: string): number {
  console.error(`clawhive: ${inert(message, { newlines: false })}`);
  return 1;
}

function print(runId: string, outcome: ToolCallOutcome, report: LeastPrivilegeReport | undefined, json: boolean): void {
  if (json) {
    console.log(jsonOut({ run: runId, ...outcome, ...(report ? { report } : {}) }));
    return;
  }
  if (outcome.status === "ok") console.log(typeof outcome.output === "string" ? inert(outcome.output) : jsonText(outcome.output));
  else if (outcome.status === "error") console.error(inert(`${outcome.tool}: ${outcome.error.kind}: ${outcome.error.message}`));
  else {
    console.error(inert(`${outcome.tool}: waiting for approval ${outcome.approval.id} (${outcome.approval.reason})`, { newlines: false }));
    console.error(inert(`  run ${runId}: approve with 'clawhive approvals approve ${outcome.approval.id}', then 'clawhive resume ${runId}'`, { newlines: false }));
  }
  if (report) console.error([`run ${inert(runId, { newlines: false })} ended; least-privilege report:`, ...reportLines(report)].join("\n"));
}
