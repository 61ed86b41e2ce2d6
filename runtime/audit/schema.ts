import type { Migration } from "../store/index.js";
import { AUDIT_INDEX_STATEMENTS } from "./audit-index.js";

/**
 * The audit table. `seq` is the record id and its place in the hash chain; the writer assigns it
 * explicitly (last + 1), so the primary key is what keeps the chain linear across processes: two
 * writers that read the same head both try the same seq and one of them fails and retries.
 *
 * Indexes served the queries (trace, run, agent, tool, time range; each implicitly ordered by seq
 * for cursor pages), and status two partial ones for the rare statuses people look for (`denied`,
 * `error`). Since audit#5 they are indexes of `audit_index`, filled after the records commit.
 * Triggers refuse UPDATE and DELETE, so the runtime's own code cannot rewrite history by mistake;
 * someone with the file can drop them, which is what the hash chain is for.
 */
const TABLE_V1 = `CREATE TABLE audit_records (
        seq INTEGER PRIMARY KEY,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('tool_call', 'host_call')),
        status TEXT NOT NULL CHECK (status IN ('intent', 'ok', 'error', 'denied')),
        decision TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
        intent_seq INTEGER,
        trace_id TEXT NOT NULL,
        task_id TEXT,
        run_id TEXT NOT NULL,
        step_id TEXT,
        parent_run_id TEXT,
        agent TEXT NOT NULL,
        plugin TEXT,
        tool TEXT,
        tool_call_id TEXT,
        tool_call_name TEXT,
        proxy TEXT,
        host_function TEXT,
        args TEXT,
        args_bytes INTEGER,
        args_truncated INTEGER NOT NULL,
        requested_capabilities TEXT NOT NULL,
        granted_capabilities TEXT NOT NULL,
        approval_required INTEGER NOT NULL,
        approval_result TEXT,
        denial_capability TEXT,
        denial_reason TEXT,
        denial_message TEXT,
        start_at INTEGER NOT NULL,
        end_at INTEGER,
        error_code TEXT,
        error_message TEXT,
        result_size INTEGER
      ) STRICT`;

/** Indexes and triggers of audit_records: dropped with the table, so every rebuild recreates them. */
const INDEXES_AND_TRIGGERS: readonly string[] = [
  "CREATE INDEX audit_records_trace ON audit_records (trace_id)",
  "CREATE INDEX audit_records_run ON audit_records (run_id)",
  "CREATE INDEX audit_records_agent ON audit_records (agent)",
  "CREATE INDEX audit_records_tool ON audit_records (tool)",
  "CREATE INDEX audit_records_start ON audit_records (start_at)",
  "CREATE INDEX audit_records_denied ON audit_records (seq) WHERE status = 'denied'",
  "CREATE INDEX audit_records_error ON audit_records (seq) WHERE status = 'error'",
  `CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records
        BEGIN SELECT RAISE(ABORT, 'audit_records is append-only'); END`,
  `CREATE TRIGGER audit_records_no_delete BEFORE DELETE ON audit_records
        BEGIN SELECT RAISE(ABORT, 'audit_records is append-only'); END`,
];

/** Column list of the v2 copy, written out: a released migration's text never changes. */
const V2_COLUMNS =
  "seq, prev_hash, hash, kind, status, decision, intent_seq, trace_id, task_id, run_id, step_id, parent_run_id, agent, plugin, tool, " +
  "tool_call_id, tool_call_name, proxy, host_function, args, args_bytes, args_truncated, requested_capabilities, granted_capabilities, " +
  "approval_required, approval_result, denial_capability, denial_reason, denial_message, start_at, end_at, error_code, error_message, result_size";

export const auditMigrations: readonly Migration[] = [
  {
    room: "audit",
    version: 1,
    name: "create audit_records",
    statements: [TABLE_V1, ...INDEXES_AND_TRIGGERS],
  },
  {
    // SQLite cannot alter a CHECK constraint: the table is rebuilt (create, copy, drop, rename)
    // in the migration's one transaction. Rows are copied byte for byte — seq, prev_hash, hash and
    // every hashed column — so the chain verifies across the rebuild. Dropping a table fires no
    // trigger (its triggers are dropped first), so the append-only guards do not stand in the way;
    // they are recreated on the new table with its indexes.
    room: "audit",
    version: 2,
    name: "audit_records kind allows model_call",
    statements: [
      TABLE_V1.replace("CREATE TABLE audit_records (", "CREATE TABLE audit_records_v2 (").replace(
        "CHECK (kind IN ('tool_call', 'host_call'))",
        "CHECK (kind IN ('tool_call', 'host_call', 'model_call'))",
      ),
      `INSERT INTO audit_records_v2 (${V2_COLUMNS}) SELECT ${V2_COLUMNS} FROM audit_records ORDER BY seq`,
      "DROP TABLE audit_records",
      "ALTER TABLE audit_records_v2 RENAME TO audit_records",
      ...INDEXES_AND_TRIGGERS,
    ],
  },
  {
    // The same rebuild as version 2, for plugin install/upgrade/remove records: rows are copied
    // byte for byte, so the chain verifies across it.
    room: "audit",
    version: 3,
    name: "audit_records kind allows plugin",
    statements: [
      TABLE_V1.replace("CREATE TABLE audit_records (", "CREATE TABLE audit_records_v3 (").replace(
        "CHECK (kind IN ('tool_call', 'host_call'))",
        "CHECK (kind IN ('tool_call', 'host_call', 'model_call', 'plugin'))",
      ),
      `INSERT INTO audit_records_v3 (${V2_COLUMNS}) SELECT ${V2_COLUMNS} FROM audit_records ORDER BY seq`,
      "DROP TABLE audit_records",
      "ALTER TABLE audit_records_v3 RENAME TO audit_records",
      ...INDEXES_AND_TRIGGERS,
    ],
  },
  {
    // The same rebuild again, for pattern approvals created and revoked: rows copied byte for byte.
    room: "audit",
    version: 4,
    name: "audit_records kind allows approval_pattern",
    statements: [
      TABLE_V1.replace("CREATE TABLE audit_records (", "CREATE TABLE audit_records_v4 (").replace(
        "CHECK (kind IN ('tool_call', 'host_call'))",
        "CHECK (kind IN ('tool_call', 'host_call', 'model_call', 'plugin', 'approval_pattern'))",
      ),
      `INSERT INTO audit_records_v4 (${V2_COLUMNS}) SELECT ${V2_COLUMNS} FROM audit_records ORDER BY seq`,
      "DROP TABLE audit_records",
      "ALTER TABLE audit_records_v4 RENAME TO audit_records",
      ...INDEXES_AND_TRIGGERS,
    ],
  },
  {
    // The filtered columns move to audit_index (see audit-index.ts), filled after the records are
    // durable: a commit on a guest's path no longer writes a page per index. The records are not
    // touched, so the chain verifies across it; the append-only guards stay.
    room: "audit",
    version: 5,
    name: "audit_records indexed in audit_index",
    statements: AUDIT_INDEX_STATEMENTS,
  },
];

/** The hashed columns, in insert order: everything but seq, prev_hash and hash. */
export const BODY_COLUMNS = [
  "kind",
  "status",
  "decision",
  "intent_seq",
  "trace_id",
  "task_id",
  "run_id",
  "step_id",
  "parent_run_id",
  "agent",
  "plugin",
  "tool",
  "tool_call_id",
  "tool_call_name",
  "proxy",
  "host_function",
  "args",
  "args_bytes",
  "args_truncated",
  "requested_capabilities",
  "granted_capabilities",
  "approval_required",
  "approval_result",
  "denial_capability",
  "denial_reason",
  "denial_message",
  "start_at",
  "end_at",
  "error_code",
  "error_message",
  "result_size",
] as const;

export type BodyColumn = (typeof BODY_COLUMNS)[number];
/** A record's hashed content, exactly as stored: TEXT as string, INTEGER as number. */
export type RecordBody = { readonly [K in BodyColumn]: string | number | null };

export const ALL_COLUMNS = ["seq", "prev_hash", "hash", ...BODY_COLUMNS] as const;

export const INSERT_SQL = `INSERT INTO audit_records (${ALL_COLUMNS.join(", ")}) VALUES (${ALL_COLUMNS.map(() => "?").join(", ")})`;

export const SELECT_COLUMNS = ALL_COLUMNS.join(", ");
