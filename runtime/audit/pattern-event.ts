import { randomBytes } from "node:crypto";
import { EMPTY, invalid, requireText } from "./body.js";
import type { BodyContext } from "./body.js";
import { storedObject, type JsonValue } from "./json.js";
import type { RecordBody } from "./schema.js";
import type { PatternEventInput, PatternEventSummary } from "./types.js";

// A standing approval given or taken back is one `approval_pattern` record: the pattern's id,
// agent, tool, argument globs, expiry and who. It stands for a person's approval of calls not yet
// made, so it is chained with the calls it lets through. A pattern for one run carries that run's
// id; one for every run of the agent carries none (run_id is empty, trace_id the record's own).

/** The proxy name pattern records carry; host_function is the action (`create`, `revoke`). */
export const PATTERN_EVENT_PROXY = "approval_pattern";

const ACTIONS: ReadonlySet<string> = new Set(["create", "revoke", "withdraw"]);

export function patternEventBody(input: PatternEventInput, context: BodyContext): RecordBody {
  if (!ACTIONS.has(input.action)) throw invalid("action", "must be create, revoke or withdraw");
  requireText("id", input.id);
  requireText("agent", input.agent);
  requireText("tool", input.tool);
  requireText("by", input.by);
  if (input.kind !== "tool_call" && input.kind !== "effect") throw invalid("kind", "must be tool_call or effect");
  if (!Number.isSafeInteger(input.expiresAt)) throw invalid("expiresAt", "must be epoch milliseconds");
  if (typeof input.arguments !== "object" || input.arguments === null) throw invalid("arguments", "must be an object of field path → glob");
  const { redactor } = context;
  const secrets = redactor.secrets();
  const args: JsonValue = {
    action: input.action,
    id: input.id,
    agent: input.agent,
    kind: input.kind,
    tool: input.tool,
    capability: input.capability ?? null,
    arguments: { ...input.arguments },
    applies_to: input.runId == null ? "agent" : "run",
    run_id: input.runId ?? null,
    approval_id: input.approvalId ?? null,
    expires_at: new Date(input.expiresAt).toISOString(),
    by: input.by,
  };
  const stored = redactor.args(args, { kind: "approval_pattern", proxy: PATTERN_EVENT_PROXY, function: input.action, tool: input.tool }, secrets);
  return {
    ...EMPTY,
    kind: "approval_pattern",
    status: "ok",
    decision: "allow",
    trace_id: `pattern-${randomBytes(8).toString("hex")}`,
    run_id: input.runId == null ? "" : redactor.name(input.runId, secrets),
    agent: redactor.name(input.agent, secrets),
    tool: redactor.name(input.tool, secrets),
    proxy: PATTERN_EVENT_PROXY,
    host_function: input.action,
    args: stored.text,
    args_bytes: stored.bytes,
    args_truncated: stored.truncated ? 1 : 0,
    approval_result: redactor.name(`pattern:${input.id}`, secrets),
    start_at: context.at,
    end_at: context.at,
  };
}

/** A stored pattern record's arguments, read back; null when they are not what this module writes. */
export function parsePatternEvent(args: string | null): PatternEventSummary | null {
  const o = storedObject(args);
  if (o === null) return null;
  const str = (value: unknown): string | null => (typeof value === "string" ? value : null);
  const globs = typeof o.arguments === "object" && o.arguments !== null && !Array.isArray(o.arguments) ? o.arguments : {};
  return {
    action: str(o.action) ?? "",
    id: str(o.id) ?? "",
    agent: str(o.agent) ?? "",
    tool: str(o.tool) ?? "",
    capability: str(o.capability),
    arguments: Object.fromEntries(Object.entries(globs).filter((e): e is [string, string] => typeof e[1] === "string")),
    appliesTo: str(o.applies_to) ?? "",
    runId: str(o.run_id),
    approvalId: str(o.approval_id),
    expiresAt: str(o.expires_at) ?? "",
    by: str(o.by) ?? "",
  };
}
