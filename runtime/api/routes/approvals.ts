import * as v from "valibot";
import { runChain } from "../../runs/chain.js";
import { ConflictError, InvalidInputError } from "../../errors.js";
import { ApprovalError } from "../../policy/approvals/index.js";
import type { Approval, ApprovalStatus } from "../../policy/approvals/index.js";
import type { Runtime } from "../../runtime.js";
import { inert, inertJson, jsonText } from "../../text/inert.js";
import { principalOf } from "../auth/index.js";
import { deciderOf } from "../auth/principal.js";
import type { Principal } from "../auth/index.js";
import { ApiError } from "../middleware/api-error.js";
import { runtimeLogger } from "../../log/index.js";
import type { InternalErrorLog } from "../middleware/index.js";
import { ID } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import type { ApiRoute } from "./route.js";
import { ApprovalBody, ApprovalDecidedBody, ApprovalPage, type ApprovalSchema } from "../schemas/approvals.js";
import { patternChoices } from "../../policy/approvals/index.js";
import type { AgentManifest } from "../../agents/index.js";
import { PatternSpecBody, approvalPatternView, expiryOf } from "./approval-patterns.js";
import { DEFAULT_PAGE, encodeCursor, PAGE_QUERY, timeKey, timeKeyOf } from "./page.js";

/** Called once a decision is stored (not awaited: the approver's answer does not wait for the run). */
export type ApprovalDecidedHook = (approval: Approval, by: Principal) => void | Promise<void>;

export interface ApprovalRoutesOptions {
  /** E.g. resume the run that waited on it. */
  readonly onApprovalDecided?: ApprovalDecidedHook;
  /** Where a failing hook is reported. */
  readonly log?: InternalErrorLog;
}

const STATUSES = ["pending", "approved", "denied", "expired", "used", "withdrawn", "all"] as const;
const MAX_REASON = 2000;

const ListQuery = v.strictObject({
  status: v.optional(v.picklist(STATUSES, `expected one of ${STATUSES.join(", ")}`)),
  run_id: v.optional(ID),
  ...PAGE_QUERY,
});
const Params = v.strictObject({ id: ID });
const Decision = v.strictObject({
  decision: v.picklist(["approve", "deny"], "expected approve or deny"),
  scope: v.optional(v.picklist(["once", "run", "pattern"], "expected once, run or pattern")),
  pattern: v.optional(PatternSpecBody),
  expires_in: v.optional(v.pipe(v.string("expected a duration like 30m, 2h, 1d or today"), v.maxLength(20))),
  expires_at: v.optional(v.pipe(v.string("expected an ISO time"), v.maxLength(40))),
  applies_to: v.optional(v.picklist(["run", "agent"], "expected run or agent")),
  reason: v.optional(v.pipe(v.string("expected text"), v.maxLength(MAX_REASON, `expected at most ${MAX_REASON} characters`))),
});

/**
 * Approvals: what runs wait for, with everything a person needs to decide; and the decision.
 * They need the approval store and the run records alone: a store opened without a runtime
 * serves them too.
 */
export function approvalRoutes(runtime: Pick<Runtime, "approvals" | "records"> & Partial<Pick<Runtime, "agents">>, options: ApprovalRoutesOptions = {}): ApiRoute[] {
  const agentOf = (name: string): AgentManifest | undefined => runtime.agents?.().find((a) => a.name === name);
  const view = async (approval: Approval) =>
    approvalView(approval, (await runtime.records.get(approval.runId))?.task ?? null, {
      agent: agentOf(approval.agent),
      // A sub-agent's approval shows who asked through whom (root first).
      chain: approval.parentRunId === null ? [] : await runChain(runtime.records, approval.runId).catch(() => []),
    });
  return [
    defineRoute({
      method: "GET",
      path: "/v1/approvals",
      tag: "approvals",
      summary: "Approvals, newest first (default: pending), each with its full context",
      description:
        "Each shows what it would allow exactly: the tool and its arguments, for an effect the capability and the canonical host call, the risk, why it is asked, and the text that led to it. Text from models and tools has its control, bidirectional and invisible characters escaped (\\u{1b}); `arguments.json` / `effect.json` are the exact values as JSON text.",
      roles: ["approver"],
      query: ListQuery,
      responses: { 200: { description: "a page of approvals", schema: ApprovalPage } },
      handler: async (c, { query }) => {
        const limit = query.limit ?? DEFAULT_PAGE;
        const before = query.cursor === undefined ? undefined : timeKeyOf(query.cursor);
        const filter = {
          ...(query.status === "all" ? {} : { status: (query.status ?? "pending") as ApprovalStatus }),
          ...(query.run_id === undefined ? {} : { runId: query.run_id }),
        };
        // The store starts after the cursor (keyset over the whole table, not over its newest rows).
        const found = await runtime.approvals.list({ ...filter, ...(before === undefined ? {} : { before: { createdAt: before.at, id: before.id } }), limit });
        const last = found.at(-1);
        const more = found.length === limit && last !== undefined && (await runtime.approvals.list({ ...filter, before: { createdAt: last.createdAt, id: last.id }, limit: 1 })).length > 0;
        const page = { items: found, next_cursor: more ? encodeCursor(timeKey(last.createdAt, last.id)) : null };
        return reply(c, ApprovalPage, { approvals: await Promise.all(page.items.map(view)), next_cursor: page.next_cursor });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/approvals/:id",
      tag: "approvals",
      summary: "One approval with its full context",
      roles: ["approver"],
      params: Params,
      responses: { 200: { description: "the approval", schema: ApprovalBody }, 404: { description: "no approval with that id" } },
      handler: async (c, { params }) => {
        const approval = await runtime.approvals.get(params.id);
        if (approval === undefined) throw new ApiError("approval_not_found", `approval ${params.id}: not found`, { status: 404 });
        return reply(c, ApprovalBody, { approval: await view(approval) });
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/approvals/:id",
      tag: "approvals",
      summary: "Approve or deny a pending approval",
      description:
        "scope `once` (default) covers exactly this call; `run` every later call of the tool in the run (ToolCall approvals only); `pattern` this call and every later call whose canonical arguments the `pattern` covers (one of `pattern_choices`, or narrower), until `expires_in` (`30m`, `2h`, `1d`, or `today`: until midnight of the server's time zone, named in the reply's `expiry`) / `expires_at`, for the run or (`applies_to: agent`) every run of the agent. A pattern reaching outside the agent's grant, or over an Unsafe effect the manifest does not open to patterns, is 400 naming the field. The decision is recorded with the deciding token's id. A decided or expired approval is 409.",
      roles: ["approver"],
      params: Params,
      body: Decision,
      responses: {
        200: { description: "decided (with the pattern created, for scope pattern)", schema: ApprovalDecidedBody },
        400: { description: "bad body, or a pattern outside the grant" },
        404: { description: "approval_not_found" },
        409: { description: "approval_not_pending (already decided or used), approval_expired, or approval_withdrawn (its run ended first)" },
      },
      handler: async (c, { params, body }) => {
        if (body.decision === "deny" && body.scope !== undefined) throw new InvalidInputError("body.scope: only an approval has a scope; leave it out to deny", { field: "body.scope" });
        const principal = principalOf(c);
        if (body.scope === "pattern") {
          if (body.pattern === undefined) throw new InvalidInputError("body.pattern: scope pattern needs the pattern (one of the approval's pattern_choices)", { field: "body.pattern" });
          const current = await runtime.approvals.get(params.id);
          if (current === undefined) throw new ApiError("approval_not_found", `approval ${params.id}: not found`, { status: 404 });
          const agent = agentOf(current.agent);
          if (agent === undefined) throw new ConflictError("agent_unknown", `approval ${params.id}: agent ${current.agent} is not loaded here, so a pattern cannot be checked against its grant; approve it once`);
          const expiry = expiryOf(body, runtime.approvals.now());
          let decided: Awaited<ReturnType<typeof runtime.approvals.approveByPattern>>;
          try {
            decided = await runtime.approvals.approveByPattern(params.id, {
              pattern: body.pattern,
              expiresAt: expiry.at,
              appliesTo: body.applies_to ?? "run",
              by: deciderOf(principal),
              agent,
              ...(body.reason === undefined ? {} : { reason: body.reason }),
            });
          } catch (error) {
            throw decideError(error);
          }
          notify(options, decided.approval, principal);
          return reply(c, ApprovalDecidedBody, { approval: await view(decided.approval), pattern: approvalPatternView(decided.pattern), expiry: expiry.said });
        }
        for (const extra of ["pattern", "expires_in", "expires_at", "applies_to"] as const) {
          if (body[extra] !== undefined) throw new InvalidInputError(`body.${extra}: only scope pattern takes a ${extra}`, { field: `body.${extra}` });
        }
        let decided: Approval;
        try {
          decided = await runtime.approvals.decide(params.id, {
            decision: body.decision,
            by: deciderOf(principal),
            ...(body.scope === undefined ? {} : { scope: body.scope as "once" | "run" }),
            ...(body.reason === undefined ? {} : { reason: body.reason }),
          });
        } catch (error) {
          throw decideError(error);
        }
        notify(options, decided, principal);
        return reply(c, ApprovalDecidedBody, { approval: await view(decided) });
      },
    }),
  ];
}

/** An expiry or a withdrawal is a conflict with the approval's state like a prior decision (one 409 for all). */
function decideError(error: unknown): unknown {
  if (error instanceof ApprovalError && (error.code === "approval_expired" || error.code === "approval_withdrawn")) return new ConflictError(error.code, error.message, { cause: error });
  if (error instanceof InvalidInputError && error.field !== undefined) return new InvalidInputError(`body.${error.message}`, { field: `body.${error.field}`, cause: error });
  return error;
}

function notify(options: ApprovalRoutesOptions, approval: Approval, by: Principal): void {
  const hook = options.onApprovalDecided;
  if (hook === undefined) return;
  const report = (error: unknown) =>
    (options.log ?? ((e: unknown, where: string) => runtimeLogger().error({ err: e, where, approval_id: approval.id, run_id: approval.runId, trace_id: approval.traceId }, "approval hook failed")))(error, `onApprovalDecided ${approval.id}`);
  try {
    void Promise.resolve(hook(approval, by)).catch(report);
  } catch (error) {
    report(error);
  }
}

/**
 * An approval as a person deciding it sees it. The facts it binds (tool, arguments, effect) are
 * given twice: as values with every string made inert, for showing field by field, and as exact
 * JSON text (`json`) — what the approval's hash covers, with unsafe characters as `\u` escapes.
 */
export function approvalView(a: Approval, task: string | null, options: { chain?: ReadonlyArray<{ runId: string; agent: string }>; agent?: AgentManifest | undefined } = {}): v.InferInput<typeof ApprovalSchema> {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    run_id: a.runId,
    trace_id: a.traceId,
    parent_run_id: a.parentRunId,
    chain: (options.chain ?? []).map((c) => ({ run_id: c.runId, agent: inert(c.agent) })),
    step_id: inert(a.stepId),
    tool_call_id: inert(a.toolCallId),
    agent: inert(a.agent),
    tool: inert(a.tool),
    risk: a.risk,
    arguments: { value: inertJson(a.input), json: jsonText(a.input, { indent: 0 }), sha256: a.argsHash },
    effect: a.kind === "effect" ? { capability: inert(a.capability ?? ""), value: inertJson(a.effect), json: jsonText(a.effect, { indent: 0 }), sha256: a.effectHash } : null,
    reason: inert(a.reason),
    context: a.context === null ? null : inert(a.context),
    task: task === null ? null : inert(task),
    created_at: new Date(a.createdAt).toISOString(),
    expires_at: new Date(a.expiresAt).toISOString(),
    decision:
      a.decision === null
        ? null
        : {
            decision: a.decision,
            scope: a.scope,
            by: inert(a.decidedBy ?? ""),
            at: a.decidedAt === null ? null : new Date(a.decidedAt).toISOString(),
            reason: a.decisionReason === null ? null : inert(a.decisionReason),
          },
    used: { count: a.useCount, last_at: a.usedAt === null ? null : new Date(a.usedAt).toISOString() },
    // What untrusted content the run had read when it asked: an instruction hidden there may be why.
    untrusted_sources: a.untrustedSources.map((s) => inert(s)),
    // Offered only while it can still be decided, and for an effect only where the manifest opens the tool to patterns.
    pattern_choices:
      a.status !== "pending" || (a.kind === "effect" && !(options.agent?.approvals.unsafe_patterns.includes(a.tool) ?? false))
        ? []
        : patternChoices(a.tool, a.kind === "effect" ? a.effect : a.input).map((choice) => ({ pattern: { tool: inert(choice.pattern.tool), arguments: { ...choice.pattern.arguments } }, summary: inert(choice.summary) })),
    // Which ToolCalls had read secrets (names only): what they returned may hold one changed.
    secrets_read: a.secretsRead.map((r) => ({ tool_call_id: inert(r.toolCallId), tool: inert(r.tool), secrets: r.secrets.map((s) => inert(s)) })),
  };
}
