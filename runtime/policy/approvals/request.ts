import { canonicalJson } from "../../audit/index.js";
import { InvalidInputError } from "../../errors.js";
import { truncateUtf8 } from "../../audit/redact.js";
import { ApprovalError } from "./errors.js";
import { StoreError } from "../../store/index.js";
import type { SqlValue } from "../../store/index.js";
import type { ApprovalContext } from "./context.js";
import { argsHash, sha256Hex } from "./hash.js";
import { expireDue } from "./query.js";
import { approvalFromRow } from "./row.js";
import { SELECT } from "./schema.js";
import type { Approval, ApprovalRequestInput } from "./types.js";

/**
 * What one approval may hold. A person reads the arguments before deciding, and every list and
 * read of approvals carries them: a 40 MB argument would stall both and show nobody anything
 * useful. The arguments (input and effect, canonical JSON) over the cap are refused; the
 * context (the model's text, shown for information only) is cut to its cap.
 */
export const MAX_APPROVAL_ARGS_BYTES = 256 * 1024;
export const MAX_APPROVAL_CONTEXT_BYTES = 16 * 1024;

/** Same rule as agent manifests' tool references (runtime/agents/schema.ts): `plugin.tool`. */
const TOOL_REF = /^[a-z][a-z0-9-]{0,62}\.[a-z][a-z0-9_]{0,62}$/;
const RISKS = ["safe", "guarded", "unsafe"];
const REQUIRED_TEXT = ["runId", "traceId", "agent", "stepId", "toolCallId", "reason"] as const;

const INSERT_COLUMNS = [
  "id", "kind", "status", "run_id", "trace_id", "agent", "parent_run_id", "step_id", "tool_call_id", "tool",
  "input", "args_hash", "capability", "effect", "effect_hash", "risk", "reason", "context", "dedupe_key",
  "created_at", "expires_at", "untrusted_sources", "secrets_read",
] as const;
const INSERT_SQL = `INSERT INTO approvals (${INSERT_COLUMNS.join(", ")}) VALUES (${INSERT_COLUMNS.map(() => "?").join(", ")})`;

/**
 * Files a pending approval, or returns the pending one with the same binding. The unique index
 * on pending `dedupe_key` is what makes that hold across concurrent requests: a loser's insert
 * fails on it and reads the winner's row.
 */
export async function requestApproval(ctx: ApprovalContext, input: ApprovalRequestInput): Promise<Approval> {
  const row = rowFor(ctx, input);
  // A pending row past its deadline still holds the binding's unique slot: free it first.
  await expireDue(ctx, { dedupeKey: row.dedupe_key });
  const existing = await pendingByKey(ctx, row.dedupe_key);
  if (existing !== undefined) return existing;
  try {
    await ctx.store.execute({ sql: INSERT_SQL, args: INSERT_COLUMNS.map((c) => row[c]) });
  } catch (error) {
    if (!(error instanceof StoreError && error.code === "store_constraint")) throw error;
    const winner = await pendingByKey(ctx, row.dedupe_key);
    if (winner === undefined) throw error;
    return winner;
  }
  const created = await pendingByKey(ctx, row.dedupe_key);
  if (created === undefined) throw new Error(`approvals: inserted ${row.id} but cannot read it back`);
  return created;
}

async function pendingByKey(ctx: ApprovalContext, dedupeKey: string): Promise<Approval | undefined> {
  const result = await ctx.store.execute({
    sql: `${SELECT} WHERE dedupe_key = ? AND status = 'pending' AND expires_at > ?`,
    args: [dedupeKey, ctx.clock.now()],
  });
  const row = result.rows[0];
  return row === undefined ? undefined : approvalFromRow(row);
}

type InsertRow = Record<(typeof INSERT_COLUMNS)[number], SqlValue> & { id: string; dedupe_key: string };

/** Validates the request and canonicalises its arguments once: what is shown is what is hashed. */
function rowFor(ctx: ApprovalContext, input: ApprovalRequestInput): InsertRow {
  validate(input);
  const inputJson = canonicalJsonOf(input.input, "input");
  const effectJson = input.kind === "effect" ? canonicalJsonOf(input.effect, "effect") : null;
  const bytes = Buffer.byteLength(inputJson) + (effectJson === null ? 0 : Buffer.byteLength(effectJson));
  if (bytes > MAX_APPROVAL_ARGS_BYTES) {
    throw new ApprovalError(
      "approval_too_large",
      `${input.tool}: its arguments are ${bytes} bytes, over the ${MAX_APPROVAL_ARGS_BYTES} bytes an approval may hold; nobody can review that much, so the call is refused (pass large content by reference, e.g. a file path)`,
    );
  }
  const args = sha256Hex(inputJson);
  const effectHash = effectJson === null ? null : sha256Hex(effectJson);
  const capability = input.kind === "effect" ? input.capability : null;
  const now = ctx.clock.now();
  return {
    id: ctx.newId(),
    kind: input.kind,
    status: "pending",
    run_id: input.runId,
    trace_id: input.traceId,
    agent: input.agent,
    parent_run_id: input.parentRunId ?? null,
    step_id: input.stepId,
    tool_call_id: input.toolCallId,
    tool: input.tool,
    input: inputJson,
    args_hash: args,
    capability,
    effect: effectJson,
    effect_hash: effectHash,
    risk: input.risk,
    reason: input.reason,
    context: input.context == null ? null : capContext(input.context),
    dedupe_key: argsHash([input.kind, input.runId, input.stepId, input.tool, capability, args, effectHash]),
    created_at: now,
    expires_at: now + (input.expiryMinutes === undefined ? ctx.pendingMs : input.expiryMinutes * 60_000),
    untrusted_sources: JSON.stringify(capSources(input.untrustedSources ?? [])),
    secrets_read: JSON.stringify(capSecretReads(input.secretsRead ?? [])),
  };
}

function validate(input: ApprovalRequestInput): void {
  const minutes = input.expiryMinutes;
  if (minutes !== undefined && !(Number.isInteger(minutes) && minutes >= 1 && minutes <= 10_080)) {
    throw new InvalidInputError("expiryMinutes: expected whole minutes from 1 to 10080", { field: "expiryMinutes" });
  }
  const kind: unknown = input.kind;
  if (kind !== "tool_call" && kind !== "effect") {
    throw new InvalidInputError(`kind: ${JSON.stringify(kind)} must be tool_call or effect`, { field: "kind" });
  }
  for (const field of REQUIRED_TEXT) {
    const value: unknown = input[field];
    if (typeof value !== "string" || value === "") {
      throw new InvalidInputError(`${field}: must be a non-empty string`, { field });
    }
  }
  if (!TOOL_REF.test(input.tool)) {
    throw new InvalidInputError(`tool: ${JSON.stringify(input.tool)} must be plugin.tool, e.g. files.write_file`, { field: "tool" });
  }
  if (!RISKS.includes(input.risk)) {
    throw new InvalidInputError(`risk: ${JSON.stringify(input.risk)} must be one of ${RISKS.join(", ")}`, { field: "risk" });
  }
  if (input.kind === "effect" && (typeof input.capability !== "string" || input.capability === "")) {
    throw new InvalidInputError("capability: an effect approval names the capability of its host call", { field: "capability" });
  }
}

/** At most this many sources, each at most this long, are kept with an approval (the rest counted). */
export const MAX_APPROVAL_SOURCES = 20;
const MAX_SOURCE_CHARS = 300;

function capSources(sources: readonly string[]): string[] {
  const kept = sources.slice(0, MAX_APPROVAL_SOURCES).map((s) => (s.length > MAX_SOURCE_CHARS ? `${s.slice(0, MAX_SOURCE_CHARS)}…` : s));
  if (sources.length > MAX_APPROVAL_SOURCES) kept.push(`… and ${sources.length - MAX_APPROVAL_SOURCES} more`);
  return kept;
}

/** At most MAX_APPROVAL_SOURCES ToolCalls, each with at most 20 names: names only, never values. */
function capSecretReads(reads: NonNullable<ApprovalRequestInput["secretsRead"]>): Array<{ tool_call_id: string; tool: string; secrets: string[] }> {
  return reads.slice(0, MAX_APPROVAL_SOURCES).map((r) => ({ tool_call_id: r.toolCallId.slice(0, 200), tool: r.tool.slice(0, 200), secrets: r.secrets.slice(0, 20).map((s) => s.slice(0, 100)) }));
}

function capContext(text: string): string {
  if (Buffer.byteLength(text) <= MAX_APPROVAL_CONTEXT_BYTES) return text;
  const marker = "… (cut: the model's text was longer)";
  return truncateUtf8(text, MAX_APPROVAL_CONTEXT_BYTES - Buffer.byteLength(marker)) + marker;
}

/** Renames canonicalJson's `$…` path to the request field, so the error says which argument failed. */
function canonicalJsonOf(value: unknown, field: "input" | "effect"): string {
  try {
    return canonicalJson(value);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const path = (error.field ?? "$").replace(/^\$/, field);
    throw new InvalidInputError(error.message.replace(/^canonical JSON \$\S*/, `${path}:`), { field: path, cause: error });
  }
}
