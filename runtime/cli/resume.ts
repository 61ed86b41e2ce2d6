import type { ClawhiveClient, OutcomeView, RunView } from "../client/client.js";
import { ClawhiveError, InvalidInputError } from "../errors.js";
import type { LeastPrivilegeReport } from "../runs/report.js";
import type { ToolCallOutcome } from "../runs/types.js";
import { inert, jsonOut, jsonText } from "./render.js";
import { parseCommandArgs } from "./args.js";
import { withClient } from "./command-client.js";
import { reportLines } from "./runs.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import { SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { camelKeys, runFromView, type RunSummary } from "./views.js";

export const resumeHelp = `clawhive resume — continue a run that waited for an approval

  clawhive resume RUN [--json]

  Replays the ToolCall the run paused on, now that its approval is decided: approved, the
  call runs; denied or expired, it fails. Unless the call pauses again (for another effect),
  the run then ends and its least-privilege report is printed (to stderr). A run started with
  several tool calls ('clawhive run … --call …', POST /v1/runs) goes on with the rest of them.
  Through a server (POST /v1/runs/RUN/resume) the server continues it; a server also
  continues a decided run by itself, so there the run has often ended already.

  --json            print the outcome and the report as JSON
  --agents DIR      where agent manifests live (default the project's capabilities/;
                    env CLAWHIVE_AGENTS_DIR): the run's agent must be there
${STORE_FLAGS_HELP}
${SERVER_FLAGS_HELP}

  Exit codes: 0 output; 1 the tool returned an error (also a denied or expired approval), or
  the run is unknown, ended or not waiting; 3 still waiting for approval; 2 bad usage.

  Example:
    clawhive resume run_01J…`;

const RESUMABLE = -1;

export async function resumeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, agents: { type: "string" }, json: { type: "boolean" } });
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive resume RUN");
  // Loading the plugins takes a second or two: answer what the store alone can answer first.
  // No store is bad usage (exit 2), as for every command that reads runs.
  const ready = await withClient(values, (client) => checkResumable(client, id), { storeOnly: true });
  if (ready !== RESUMABLE) return ready;
  return withClient(values, (client) => resume(client, id, values.json === true), { existing: true });
}

async function resume(client: ClawhiveClient, id: string, json: boolean): Promise<number> {
  let resumed: { run: RunView; outcome?: OutcomeView };
  try {
    resumed = await client.resumeRun(id);
  } catch (error) {
    if (!(error instanceof ClawhiveError)) throw error;
    // The run's agent is not in this agents dir.
    if (error.code === "not_found" && error.message.startsWith("no agent ")) return refuse(`run ${id}: ${error.message}; pass the --agents DIR the run was started with`);
    if (error.code === "run_leased") return refuse(`run ${id} is driven by another runtime; it continues there (follow it with 'clawhive runs watch ${id}')`);
    // Another process decided, resumed or ended it since the check.
    if (["not_found", "run_ended", "run_not_waiting"].includes(error.code)) return refuse(error.message);
    if (error.code === "approval_pending" || error.code === "sub_agent_waiting") {
      console.error(inert(error.message, { newlines: false }));
      return 3;
    }
    throw error;
  }
  const run = runFromView(resumed.run);
  if (resumed.outcome === undefined) return continued(client, run, resumed.run.result, json);
  const outcome = camelKeys<ToolCallOutcome>(resumed.outcome, new Set(["output", "input"]));
  print(id, outcome, outcome.status === "approval_required" ? undefined : (run.report as LeastPrivilegeReport | null) ?? undefined, json);
  return outcome.status === "ok" ? 0 : outcome.status === "error" ? 1 : 3;
}

/** A driven run continued to its end or its next wait; exit code as for a single call. */
async function continued(client: ClawhiveClient, record: RunSummary, result: string | null, json: boolean): Promise<number> {
  const id = record.id;
  const outcomes = record.outcomes as ToolCallOutcome[];
  if (json) console.log(jsonOut({ run: id, status: record.status, outcomes, result, ...(record.report ? { report: record.report } : {}) }));
  else {
    if (result !== null) console.log(inert(result));
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
    await printParent(client, record);
  }
  if (record.status === "awaiting_approval") return 3;
  return record.endReason === "completed" && outcomes.every((o) => o.status === "ok") ? 0 : 1;
}

/** What became of the run that started this sub-agent run, once this one has ended. */
async function printParent(client: ClawhiveClient, record: RunSummary): Promise<void> {
  if (record.status !== "ended" || record.parentRunId === null) return;
  const parent = await client.getRun(record.parentRunId).then(runFromView, () => undefined);
  if (parent === undefined) return;
  if (parent.pending?.childRunId === record.id) {
    // Held by another runtime: it continues there at its next tick.
    console.error(inert(`run ${parent.id} waits for this sub-agent run; it continues where it is driven (or 'clawhive resume ${parent.id}')`, { newlines: false }));
  } else {
    console.error(inert(`run ${parent.id}, which started this sub-agent run, is ${parent.status === "ended" ? `ended (${parent.endReason ?? "completed"})` : parent.status}; 'clawhive runs show ${parent.id}'`, { newlines: false }));
  }
}

/** `RESUMABLE`, or the exit code of a run that cannot be resumed now (message printed). */
async function checkResumable(client: ClawhiveClient, id: string): Promise<number> {
  const view = await client.getRun(id).catch((error: unknown) => {
    if (error instanceof ClawhiveError && error.code === "not_found") return undefined;
    throw error;
  });
  if (view === undefined) return refuse(`no run ${id}; 'clawhive runs list' shows the runs in this store`);
  const record = runFromView(view);
  if (record.status === "ended") {
    const at = record.endedAt === null ? "" : ` at ${new Date(record.endedAt).toISOString()}`;
    return refuse(`run ${id} has ended${at}; nothing to resume ('clawhive runs show ${id}' shows its report)`);
  }
  if (record.status !== "awaiting_approval" || !record.pending) return refuse(`run ${id} is ${record.status}, not waiting for an approval; nothing to resume`);
  const childRunId = record.pending.childRunId;
  if (childRunId !== undefined) {
    // It waits for its sub-agent run: resumable once that has ended.
    if ((await client.getRun(childRunId).catch(() => undefined))?.status === "ended") return RESUMABLE;
    console.error(inert(`${record.pending.tool}: waiting for sub-agent run ${childRunId}, which waits for approval ${record.pending.approvalId}`, { newlines: false }));
    console.error(inert(`  decide it, then 'clawhive resume ${childRunId}'; this run continues when that one ends`, { newlines: false }));
    return 3;
  }
  // A client token may not read approvals: the resume itself then says whether it still waits.
  const approval = await client.getApproval(record.pending.approvalId).catch(() => undefined);
  if (approval?.status === "pending") {
    console.error(inert(`${record.pending.tool}: still waiting for approval ${approval.id} (expires ${new Date(approval.expires_at).toISOString()})`, { newlines: false }));
    console.error(inert(`  decide with 'clawhive approvals approve ${approval.id}' (or deny), then 'clawhive resume ${id}'`, { newlines: false }));
    return 3;
  }
  return RESUMABLE;
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
