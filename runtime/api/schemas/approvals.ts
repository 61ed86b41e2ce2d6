import * as v from "valibot";
import { ANY_JSON, ISO_TIME, NEXT_CURSOR, RiskSchema } from "./common.js";

const Exact = {
  value: v.pipe(ANY_JSON, v.description("the value with every string made inert (control, bidi and invisible characters escaped)")),
  json: v.pipe(v.string(), v.description("the exact value as JSON text: what the approval's hash covers")),
};

/** A pattern over a tool's typed arguments: field path → glob (docs/security.md "Pattern approvals"). */
export const PatternSpecSchema = v.strictObject({
  tool: v.string(),
  arguments: v.pipe(v.record(v.string(), v.string()), v.description("field path (to, path, argv, message.to) → glob; * stays within a path segment, an address's local part or one argv word, ** crosses them")),
});

export const PatternChoiceSchema = v.strictObject({ pattern: PatternSpecSchema, summary: v.string() });

/** A standing pattern approval. */
export const ApprovalPatternSchema = v.strictObject({
  id: v.string(),
  agent: v.string(),
  kind: v.picklist(["tool_call", "effect"]),
  tool: v.string(),
  capability: v.nullable(v.string()),
  arguments: v.record(v.string(), v.string()),
  summary: v.string(),
  run_id: v.nullable(v.string()),
  approval_id: v.nullable(v.string()),
  expires_at: ISO_TIME,
  created_by: v.string(),
  created_at: ISO_TIME,
  revoked_by: v.nullable(v.string()),
  revoked_at: v.nullable(ISO_TIME),
  status: v.picklist(["active", "expired", "revoked"]),
  matched: v.number(),
  last_matched_at: v.nullable(ISO_TIME),
});

export const ApprovalPatternBody = v.strictObject({ pattern: ApprovalPatternSchema });
export const ApprovalPatternPage = v.strictObject({ patterns: v.array(ApprovalPatternSchema), next_cursor: NEXT_CURSOR });

/** An approval as a person deciding it sees it. */
export const ApprovalSchema = v.strictObject({
  id: v.string(),
  kind: v.picklist(["tool_call", "effect"]),
  status: v.picklist(["pending", "approved", "denied", "expired", "used", "withdrawn"]),
  run_id: v.string(),
  trace_id: v.string(),
  parent_run_id: v.nullable(v.string()),
  chain: v.pipe(v.array(v.strictObject({ run_id: v.string(), agent: v.string() })), v.description("a sub-agent's approval: the runs it asked through, root first")),
  step_id: v.string(),
  tool_call_id: v.string(),
  agent: v.string(),
  tool: v.string(),
  risk: RiskSchema,
  arguments: v.strictObject({ ...Exact, sha256: v.string() }),
  effect: v.nullable(v.strictObject({ capability: v.string(), ...Exact, sha256: v.nullable(v.string()) })),
  reason: v.string(),
  context: v.nullable(v.string()),
  task: v.nullable(v.string()),
  created_at: ISO_TIME,
  expires_at: ISO_TIME,
  decision: v.nullable(
    v.strictObject({
      decision: v.picklist(["approve", "deny"]),
      scope: v.nullable(v.picklist(["once", "run"])),
      by: v.string(),
      at: v.nullable(ISO_TIME),
      reason: v.nullable(v.string()),
    }),
  ),
  used: v.strictObject({ count: v.number(), last_at: v.nullable(ISO_TIME) }),
  untrusted_sources: v.pipe(v.array(v.string()), v.description("what untrusted content the run had read when it asked")),
  pattern_choices: v.pipe(
    v.array(PatternChoiceSchema),
    v.description("patterns a person may approve instead of this one call, narrowest first; empty for an Unsafe effect unless the agent's approvals.unsafe_patterns lists the tool"),
  ),
  secrets_read: v.pipe(
    v.array(v.strictObject({ tool_call_id: v.string(), tool: v.string(), secrets: v.array(v.string()) })),
    v.description("the ToolCalls of the run's trace that had read stored secrets when it asked, by secret name: their outputs (and so these arguments) may hold one changed beyond what redaction catches"),
  ),
});

export const ApprovalBody = v.strictObject({ approval: ApprovalSchema });
export const ApprovalDecidedBody = v.strictObject({
  approval: ApprovalSchema,
  pattern: v.optional(ApprovalPatternSchema),
  expiry: v.optional(v.pipe(v.string(), v.description("scope pattern: when it ends, said for a person (`today`: until midnight of the server's time zone, named)"))),
});
export const ApprovalPage = v.strictObject({ approvals: v.array(ApprovalSchema), next_cursor: NEXT_CURSOR });
