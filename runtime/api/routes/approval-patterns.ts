import * as v from "valibot";
import { InvalidInputError } from "../../errors.js";
import { durationExpiry, MAX_PATTERN_MS, summarise, type PatternExpiry } from "../../policy/approvals/index.js";
import type { ApprovalPattern, PatternStatus } from "../../policy/approvals/index.js";
import type { Runtime } from "../../runtime.js";
import { inert } from "../../text/inert.js";
import { principalOf } from "../auth/index.js";
import { deciderOf } from "../auth/principal.js";
import { ApiError } from "../middleware/api-error.js";
import { ApprovalPatternBody, ApprovalPatternPage, type ApprovalPatternSchema } from "../schemas/approvals.js";
import { ID } from "./fields.js";
import { DEFAULT_PAGE, encodeCursor, PAGE_QUERY, timeKey, timeKeyOf } from "./page.js";
import { defineRoute, reply } from "./route.js";
import type { ApiRoute } from "./route.js";

const GLOB = v.pipe(v.string("expected a glob"), v.minLength(1, "expected a glob"), v.maxLength(1000, "expected at most 1000 characters"));

/** The `pattern` of a decision body: what a person approves. */
export const PatternSpecBody = v.strictObject({
  tool: v.pipe(v.string("expected plugin.tool"), v.maxLength(130)),
  arguments: v.pipe(
    v.record(v.pipe(v.string(), v.maxLength(200)), GLOB, "expected an object of field path → glob"),
    v.check((args) => Object.keys(args).length <= 32, "expected at most 32 fields"),
  ),
});

const STATUSES = ["active", "expired", "revoked", "all"] as const;
const ListQuery = v.strictObject({
  agent: v.optional(v.pipe(v.string(), v.maxLength(64))),
  status: v.optional(v.picklist(STATUSES, `expected one of ${STATUSES.join(", ")}`)),
  ...PAGE_QUERY,
});
const Params = v.strictObject({ id: ID });
/**
 * A pattern's deadline from `expires_in` (`30m`, `2h`, `1d`, `today`: until the server's local
 * midnight) or `expires_at` (ISO); one of them is required. `said` is what the reply tells.
 */
export function expiryOf(body: { expires_in?: string | undefined; expires_at?: string | undefined }, now: number): PatternExpiry {
  if (body.expires_in !== undefined && body.expires_at !== undefined) throw new InvalidInputError("body.expires_at: give expires_in or expires_at, not both", { field: "body.expires_at" });
  if (body.expires_in !== undefined) return durationExpiry(body.expires_in, now, "body.expires_in");
  if (body.expires_at !== undefined) {
    const at = Date.parse(body.expires_at);
    if (!/^\d{4}-\d\d-\d\dT/.test(body.expires_at) || Number.isNaN(at)) throw new InvalidInputError(`body.expires_at: ${JSON.stringify(body.expires_at)} is not an ISO time`, { field: "body.expires_at" });
    if (at <= now) throw new InvalidInputError("body.expires_at: must be in the future", { field: "body.expires_at" });
    if (at - now > MAX_PATTERN_MS) throw new InvalidInputError("body.expires_at: a pattern lasts at most 30 days", { field: "body.expires_at" });
    return { at, said: `until ${new Date(at).toISOString()}` };
  }
  throw new InvalidInputError("body.expires_in: a pattern approval needs an expiry (expires_in like 2h or today, or expires_at)", { field: "body.expires_in" });
}

export function approvalPatternView(p: ApprovalPattern): v.InferInput<typeof ApprovalPatternSchema> {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: p.id,
    agent: inert(p.agent),
    kind: p.kind,
    tool: inert(p.tool),
    capability: p.capability,
    arguments: Object.fromEntries(Object.entries(p.arguments).map(([k, g]) => [inert(k), inert(g)])),
    summary: inert(summarise(p)),
    run_id: p.runId,
    approval_id: p.approvalId,
    expires_at: new Date(p.expiresAt).toISOString(),
    created_by: inert(p.createdBy),
    created_at: new Date(p.createdAt).toISOString(),
    revoked_by: p.revokedBy === null ? null : inert(p.revokedBy),
    revoked_at: iso(p.revokedAt),
    status: p.status,
    matched: p.matched,
    last_matched_at: iso(p.lastMatchedAt),
  };
}

/** Standing pattern approvals: listed, read and revoked by approvers (created by deciding an approval). */
export function approvalPatternRoutes(runtime: Pick<Runtime, "approvals">): ApiRoute[] {
  const notFound = (id: string) => new ApiError("approval_pattern_not_found", `approval pattern ${id}: not found`, { status: 404 });
  return [
    defineRoute({
      method: "GET",
      path: "/v1/approval-patterns",
      tag: "approvals",
      summary: "Standing pattern approvals, newest first (default: active)",
      roles: ["approver"],
      query: ListQuery,
      responses: { 200: { description: "a page of patterns", schema: ApprovalPatternPage } },
      handler: async (c, { query }) => {
        const limit = query.limit ?? DEFAULT_PAGE;
        const before = query.cursor === undefined ? undefined : timeKeyOf(query.cursor);
        const filter = {
          ...(query.agent === undefined ? {} : { agent: query.agent }),
          ...(query.status === "all" ? {} : { status: (query.status ?? "active") as PatternStatus }),
        };
        const found = await runtime.approvals.listPatterns({ ...filter, limit: limit + 1, ...(before === undefined ? {} : { before: { createdAt: before.at, id: before.id } }) });
        const page = found.slice(0, limit);
        const last = page.at(-1);
        const next = found.length > limit && last !== undefined ? encodeCursor(timeKey(last.createdAt, last.id)) : null;
        return reply(c, ApprovalPatternPage, { patterns: page.map(approvalPatternView), next_cursor: next });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/approval-patterns/:id",
      tag: "approvals",
      summary: "One standing pattern approval",
      roles: ["approver"],
      params: Params,
      responses: { 200: { description: "the pattern", schema: ApprovalPatternBody }, 404: { description: "approval_pattern_not_found" } },
      handler: async (c, { params }) => {
        const found = await runtime.approvals.getPattern(params.id);
        if (found === undefined) throw notFound(params.id);
        return reply(c, ApprovalPatternBody, { pattern: approvalPatternView(found) });
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/approval-patterns/:id",
      tag: "approvals",
      summary: "Revoke a standing pattern approval: no later call matches it",
      roles: ["approver"],
      params: Params,
      responses: {
        200: { description: "revoked", schema: ApprovalPatternBody },
        404: { description: "approval_pattern_not_found" },
        409: { description: "approval_pattern_not_active: already revoked or expired" },
      },
      handler: async (c, { params }) => {
        const found = await runtime.approvals.getPattern(params.id);
        if (found === undefined) throw notFound(params.id);
        if (found.status !== "active") throw new ApiError("approval_pattern_not_active", `approval pattern ${params.id}: already ${found.status}; only an active pattern can be revoked`, { status: 409 });
        const revoked = await runtime.approvals.revokePattern(params.id, deciderOf(principalOf(c))).catch((error: unknown) => {
          throw new ApiError("approval_pattern_not_active", error instanceof Error ? error.message : String(error), { status: 409 });
        });
        return reply(c, ApprovalPatternBody, { pattern: approvalPatternView(revoked) });
      },
    }),
  ];
}
