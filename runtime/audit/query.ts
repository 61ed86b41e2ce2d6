import { InvalidInputError } from "../errors.js";
import type { SqlValue, Statement } from "../store/index.js";
import { INDEXED_UP_TO } from "./audit-index.js";
import { SELECT_COLUMNS } from "./schema.js";
import type { AuditKind, AuditQuery, AuditStatus } from "./types.js";

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

const STATUSES: ReadonlySet<string> = new Set<AuditStatus>(["intent", "ok", "error", "denied"]);
const KINDS: ReadonlySet<string> = new Set<AuditKind>(["tool_call", "host_call", "model_call", "plugin", "approval_pattern"]);

/**
 * The page query: filters, then keyset pagination on seq (`seq > cursor` in chain order, `<` when
 * newest first) — stable while records are appended, unlike OFFSET. It asks for one row more than
 * the limit to know whether another page exists. `page(n)` is the statement for `n` rows: a page of
 * records too large for one statement is read with fewer (see `boundedPage`).
 */
export function buildQuery(query: AuditQuery): { page: (rows: number) => Statement; limit: number; order: "asc" | "desc" } {
  const order = query.order ?? "asc";
  if (order !== "asc" && order !== "desc") throw invalid("order", "must be asc or desc");
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw invalid("limit", `must be an integer from 1 to ${MAX_LIMIT}`);
  const where: string[] = [];
  const args: SqlValue[] = [];
  const equal = (column: string, value: string | number | undefined): void => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    args.push(value);
  };
  equal("trace_id", query.traceId);
  equal("run_id", query.runId);
  equal("agent", query.agent);
  equal("tool", query.tool);
  equal("intent_seq", query.intentSeq);
  if (query.kind !== undefined) {
    if (!KINDS.has(query.kind)) throw invalid("kind", "must be tool_call, host_call, model_call or plugin");
    equal("kind", query.kind);
  }
  const status = statusClause(query.status);
  if (status !== null) where.push(status);
  if (query.since !== undefined) where.push(`start_at >= ${timeArg(query.since, "since", args)}`);
  if (query.until !== undefined) where.push(`start_at < ${timeArg(query.until, "until", args)}`);
  const filtered = where.length > 0;
  if (query.cursor !== undefined) {
    where.push(order === "asc" ? "seq > ?" : "seq < ?");
    args.push(decodeCursor(query.cursor, order));
  }
  const by = ` ORDER BY seq ${order === "asc" ? "ASC" : "DESC"} LIMIT `;
  if (!filtered) {
    const sql = `SELECT ${SELECT_COLUMNS} FROM audit_records${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`}${by}`;
    return { page: (rows) => ({ sql: `${sql}${Math.max(1, Math.trunc(rows))}`, args }), limit, order };
  }
  // Filtered: the matching seqs from the index table, and from the records it does not hold yet
  // (after its last seq: a scan of the chain's tail by primary key), read in one statement so
  // both halves see the same commit; then those records.
  const condition = where.join(" AND ");
  const page = (rows: number): Statement => {
    const n = `${by}${Math.max(1, Math.trunc(rows))}`;
    return {
      sql:
        `SELECT ${SELECT_COLUMNS} FROM audit_records WHERE seq IN (` +
        `SELECT seq FROM (SELECT seq FROM audit_index WHERE ${condition}${n}) UNION ALL ` +
        `SELECT seq FROM (SELECT seq FROM audit_records WHERE seq > ${INDEXED_UP_TO} AND ${condition}${n}))${n}`,
      args: [...args, ...args],
    };
  };
  return { page, limit, order };
}

// Statuses are written as literals (checked against the enum first) so the planner can match the
// partial indexes on `denied` and `error`: it cannot prove `status = ?` implies their WHERE.
function statusClause(status: AuditQuery["status"]): string | null {
  if (status === undefined) return null;
  const list: readonly string[] = typeof status === "string" ? [status] : status;
  if (list.length === 0) throw invalid("status", "must name at least one status");
  for (const s of list) if (!STATUSES.has(s)) throw invalid("status", `${JSON.stringify(s)} is not intent, ok, error or denied`);
  return `(${list.map((s) => `status = '${s}'`).join(" OR ")})`;
}

function timeArg(value: number, field: string, args: SqlValue[]): string {
  if (!Number.isFinite(value)) throw invalid(field, "must be a finite number of milliseconds");
  args.push(value);
  return "?";
}

export function encodeCursor(seq: number, order: "asc" | "desc"): string {
  return Buffer.from(`${order === "asc" ? "a" : "d"}:${seq}`).toString("base64url");
}

function decodeCursor(cursor: string, order: "asc" | "desc"): number {
  const match = /^([ad]):(\d{1,16})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (match === null) throw invalid("cursor", "is not a cursor this log issued; pass nextCursor unchanged");
  if ((match[1] === "a" ? "asc" : "desc") !== order) throw invalid("cursor", `was issued for the other order; query with the same order`);
  return Number(match[2]);
}

function invalid(field: string, reason: string): InvalidInputError {
  return new InvalidInputError(`audit query ${field}: ${reason}`, { field });
}
