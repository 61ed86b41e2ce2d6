import * as v from "valibot";
import { ANY_JSON, ISO_TIME, NEXT_CURSOR, RiskSchema } from "./common.js";

const Exact = {
  value: v.pipe(ANY_JSON, v.description("the value with every string made inert (control, bidi and invisible characters escaped)")),
  json: v.pipe(v.string(), v.description("the exact value as JSON text: what the approval's hash covers")),
};

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
  secrets_read: v.pipe(
    v.array(v.strictObject({ tool_call_id: v.string(), tool: v.string(), secrets: v.array(v.string()) })),
    v.description("the ToolCalls of the run's trace that had read stored secrets when it asked, by secret name: their outputs (and so these arguments) may hold one changed beyond what redaction catches"),
  ),
});

export const ApprovalBody = v.strictObject({ approval: ApprovalSchema });
export const ApprovalPage = v.strictObject({ approvals: v.array(ApprovalSchema), next_cursor: NEXT_CURSOR });
