/**
 * POST /v1/runs/:id/resume: continue, now and on this runtime, a run whose approval is decided;
 * answers when the run has ended or waits for a person again. The refusals say which state
 * stands in the way, each with its own code, so a front end can tell "decide first" (the
 * approval or a sub-agent still waits) from "nothing to resume" (ended, not waiting).
 */
import * as v from "valibot";
import type { Runtime } from "../../runtime.js";
import type { ToolCallOutcome } from "../../runs/types.js";
import { principalOf } from "../auth/index.js";
import { ApiError, ID } from "../middleware/index.js";
import { ResumedBody } from "../schemas/runs.js";
import { defineRoute, reply, type ApiRoute } from "./route.js";
import { outcomeView, readable, runView } from "./runs.js";

const IdParams = v.strictObject({ id: ID });

export function runResumeRoutes(runtime: Runtime): ApiRoute[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/runs/:id/resume",
      tag: "runs",
      summary: "Continue a run whose approval is decided, here and now; answers when it ends or waits for a person again",
      description:
        "A run with a plan of tool calls, or driven by the model, goes on from where it waited (`run`); a run whose ToolCalls a program makes one by one replays the call it paused on. `outcome` is the replayed call's, for such a run and for a plan of one call (`clawhive call`). Refused with 409: `run_ended`, `run_not_waiting`, `approval_pending` (decide it first), `sub_agent_waiting` (its sub-agent run waits; `error.field` is `sub_agent_run_id`), `run_leased` (another runtime drives it: it continues there).",
      roles: ["client"],
      params: IdParams,
      responses: {
        200: { description: "continued: the run as it stands now (ended, or waiting again)", schema: ResumedBody },
        404: { description: "no such run (or not the caller's), or its agent is not known here" },
        409: { description: "run_ended, run_not_waiting, approval_pending, sub_agent_waiting, run_leased" },
      },
      handler: async (c, { params }) => {
        const record = await readable(runtime, params.id, principalOf(c)).catch((error: unknown) => {
          // The id is the one thing a caller sent: the refusal names it.
          throw error instanceof ApiError && error.code === "not_found" ? new ApiError("not_found", error.message, { status: 404, field: "path.id" }) : error;
        });
        const id = record.id;
        await resumable(runtime, record);
        let outcome: ToolCallOutcome | undefined;
        if (await runtime.isDriven(id)) {
          if (!(await runtime.continueRun(id))) throw notWaiting(`run ${id} is driven by another runtime; it continues there`, "run_leased");
          // A parent that waited for this run continues here once it ends: let it reach its end or next wait.
          await runtime.idle();
          // A plan of one call: the call it waited on is the run's one outcome, once it has one.
          if (record.plan?.length === 1) outcome = (await runtime.records.get(id))?.outcomes[record.outcomes.length] as ToolCallOutcome | undefined;
        } else {
          const run = await runtime.resumeRun(id);
          outcome = await run.resume();
          if (outcome === undefined) throw notWaiting(`run ${id} is not waiting for an approval (another runtime may have resumed it); nothing to resume`);
          if (outcome.status !== "approval_required") await run.end();
        }
        const now = (await runtime.records.get(id))!;
        return reply(c, ResumedBody, { run: runView(now, runtime), ...(outcome === undefined ? {} : { outcome: outcomeView(outcome) }) });
      },
    }),
  ];
}

/** Throws the refusal of a run that cannot be continued now. */
async function resumable(runtime: Runtime, record: NonNullable<Awaited<ReturnType<Runtime["records"]["get"]>>>): Promise<void> {
  const id = record.id;
  if (record.status === "ended") {
    const at = record.endedAt === null ? "" : ` at ${new Date(record.endedAt).toISOString()}`;
    throw new ApiError("run_ended", `run ${id} has ended${at}; nothing to resume`, { status: 409 });
  }
  if (record.status !== "awaiting_approval" || !record.pending) throw notWaiting(`run ${id} is ${record.status}, not waiting for an approval; nothing to resume`);
  const { childRunId, approvalId, tool } = record.pending;
  if (childRunId !== undefined) {
    // It waits for its sub-agent run: resumable once that has ended.
    if ((await runtime.records.get(childRunId))?.status === "ended") return;
    throw new ApiError("sub_agent_waiting", `${tool}: waiting for sub-agent run ${childRunId}, which waits for approval ${approvalId}; this run continues when that one ends`, { status: 409, field: "sub_agent_run_id" });
  }
  const approval = await runtime.approvals.get(approvalId);
  if (approval?.status === "pending") {
    throw new ApiError("approval_pending", `${tool}: still waiting for approval ${approvalId} (expires ${new Date(approval.expiresAt).toISOString()}); decide it first`, { status: 409, field: "pending_approval" });
  }
}

function notWaiting(message: string, code = "run_not_waiting"): ApiError {
  return new ApiError(code, message, { status: 409 });
}
