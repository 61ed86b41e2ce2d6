import type { Row } from "../store/index.js";
import type { JsonValue } from "./json.js";
import { parseModelCall } from "./model-call.js";
import { parsePatternEvent } from "./pattern-event.js";
import { parsePluginEvent } from "./plugin-event.js";
import { BODY_COLUMNS } from "./schema.js";
import type { RecordBody } from "./schema.js";
import type { AuditDecision, AuditKind, AuditRecord, AuditStatus } from "./types.js";

/** The stored shape (snake_case columns) to the record callers see, and a row back to its body. */

export function toRecord(chain: { seq: number; prevHash: string; hash: string }, body: RecordBody): AuditRecord {
  const text = (column: keyof RecordBody): string | null => (body[column] === null ? null : String(body[column]));
  const int = (column: keyof RecordBody): number | null => (body[column] === null ? null : Number(body[column]));
  const toolCallId = text("tool_call_id");
  const proxy = text("proxy");
  const capability = text("denial_capability");
  const errorCode = text("error_code");
  return {
    seq: chain.seq,
    prevHash: chain.prevHash,
    hash: chain.hash,
    kind: body.kind as AuditKind,
    status: body.status as AuditStatus,
    decision: body.decision as AuditDecision,
    intentSeq: int("intent_seq"),
    traceId: String(body.trace_id),
    taskId: text("task_id"),
    runId: String(body.run_id),
    stepId: text("step_id"),
    parentRunId: text("parent_run_id"),
    agent: String(body.agent),
    plugin: text("plugin"),
    tool: text("tool"),
    toolCall: toolCallId === null ? null : { id: toolCallId, name: text("tool_call_name") ?? "" },
    hostCall: proxy === null ? null : { proxy, function: text("host_function") ?? "" },
    args: text("args"),
    argsBytes: int("args_bytes"),
    argsTruncated: body.args_truncated === 1,
    requestedCapabilities: parseArray(text("requested_capabilities")),
    grantedCapabilities: parseArray(text("granted_capabilities")),
    approvalRequired: body.approval_required === 1,
    approvalResult: text("approval_result"),
    denial:
      capability === null
        ? null
        : { capability, reason: text("denial_reason") ?? "", message: text("denial_message") ?? "" },
    startAt: Number(body.start_at),
    endAt: int("end_at"),
    error: errorCode === null ? null : { code: errorCode, message: text("error_message") ?? "" },
    resultSize: int("result_size"),
    modelCall: body.kind === "model_call" ? parseModelCall(text("args")) : null,
    pluginEvent: body.kind === "plugin" ? parsePluginEvent(text("args")) : null,
    patternEvent: body.kind === "approval_pattern" ? parsePatternEvent(text("args")) : null,
  };
}

/** The body as stored; `verify()` hashes exactly this. */
export function bodyFromRow(row: Row): RecordBody {
  const body: Record<string, string | number | null> = {};
  for (const column of BODY_COLUMNS) {
    const value = row[column];
    // STRICT columns hold only TEXT, INTEGER or NULL here; anything else is tampering, and
    // stringifying it makes the hash mismatch say so.
    body[column] = value === null || typeof value === "string" || typeof value === "number" ? value : String(value);
  }
  return body as RecordBody;
}

export function rowToRecord(row: Row): AuditRecord {
  return toRecord(
    { seq: Number(row.seq), prevHash: String(row.prev_hash), hash: String(row.hash) },
    bodyFromRow(row),
  );
}

// Stored capabilities are canonical JSON; a last-resort secret sweep could in theory have broken
// that, and a reader must still get something rather than throw.
function parseArray(text: string | null): readonly JsonValue[] {
  if (text === null) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as JsonValue[]) : [parsed as JsonValue];
  } catch {
    return [text];
  }
}
